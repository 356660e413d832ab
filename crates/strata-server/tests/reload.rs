//! Live reload: edits become generations, broken edits keep the old one,
//! mounts and re-created roots are followed, requests racing reloads each
//! see exactly one generation, a file caught mid-rewrite is never served,
//! and edits that never pause are still reloaded.

mod support;

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use support::{
    ALICE, PATIENCE, Running, catalogue, compose_body, replace, rewrite_in_place, write,
};

fn mark_served(service: &Running) -> (Option<u64>, String) {
    let answer = service.post("/v1/compose", Some(ALICE), &compose_body("python-data"));
    assert_eq!(answer.status, 200, "{}", answer.text);
    let mark = answer.json()["env"]["MARK"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    (answer.generation, mark)
}

#[test]
fn an_edit_becomes_a_new_generation_and_a_broken_one_keeps_the_old() {
    let service = Running::start(&[("all.yaml", &catalogue("v1"))]);
    let file = service.catalogue.join("all.yaml");
    let first = service.status();
    assert_eq!(mark_served(&service), (Some(1), "v1".to_owned()));

    replace(&file, &catalogue("v2"));
    let second = service.wait_for_generation(2);
    assert_ne!(second["digest"], first["digest"]);
    assert_eq!(mark_served(&service), (Some(2), "v2".to_owned()));

    // Broken: generation 2 goes on serving, the status says what is wrong.
    replace(
        &file,
        &catalogue("v3").replace("image: registry", "imagee: registry"),
    );
    let status = service.wait_for_reload_error();
    assert_eq!(status["generation"], 2);
    let diagnostics = status["lastReloadError"]["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .clone();
    let unknown = diagnostics
        .iter()
        .find(|d| d["code"] == "schema/unknown-key")
        .expect("the misspelt key is reported");
    assert!(
        unknown["file"]
            .as_str()
            .is_some_and(|f| f.ends_with("all.yaml"))
    );
    assert_eq!(
        (&unknown["line"], &unknown["help"]),
        (&4.into(), &"did you mean `image`?".into())
    );
    assert_eq!(mark_served(&service), (Some(2), "v2".to_owned()));
    assert_eq!(service.get("/readyz", None).status, 200);
    let metrics = service.get("/metrics", None).text;
    assert!(metrics.contains(r#"strata_reloads_total{target="catalogue",outcome="failed"}"#));
    assert!(metrics.contains(r#"strata_reload_failing{target="catalogue"} 1"#));

    // Fixed: a new generation, and the error is gone.
    replace(&file, &catalogue("v4"));
    let status = service.wait_for_generation(3);
    assert!(status["lastReloadError"].is_null());
    assert_eq!(mark_served(&service), (Some(3), "v4".to_owned()));

    // Only YAML counts: other files change nothing.
    write(&service.catalogue.join("README.md"), "notes\n");
    std::thread::sleep(Duration::from_millis(400));
    assert_eq!(service.status()["generation"], 3);
}

#[test]
fn new_folders_settings_and_removals_are_followed() {
    let service = Running::start(&[("all.yaml", &catalogue("v1"))]);
    let listed = |service: &Running| -> Vec<String> {
        service.get("/v1/blueprints", Some(ALICE)).json()["blueprints"]
            .as_array()
            .expect("a list")
            .iter()
            .map(|b| b["name"].as_str().unwrap_or_default().to_owned())
            .collect()
    };
    // A folder made after start, and a file in it.
    let extra = service.catalogue.join("teams/data/extra.yaml");
    write(
        &extra,
        "name: python-extra\ntemplate: base\ndescription: added later\n",
    );
    service.wait_for_generation(2);
    assert_eq!(
        listed(&service),
        ["python-data", "python-extra", "python-web"]
    );

    // A file in a folder made after start changes too.
    replace(&extra, "name: python-extra2\ntemplate: base\n");
    service.wait_for_generation(3);
    assert_eq!(
        listed(&service),
        ["python-data", "python-extra2", "python-web"]
    );

    // The settings file.
    write(
        &service.catalogue.join(".strata.yaml"),
        "mergeStrategies: {env: bogus}\n",
    );
    let status = service.wait_for_reload_error();
    assert_eq!(
        status["lastReloadError"]["diagnostics"][0]["code"],
        "platform/invalid-strategy"
    );
    std::fs::remove_file(service.catalogue.join(".strata.yaml")).expect("removed");
    service.wait_until("the settings error to clear", |r| {
        r.status()["lastReloadError"].is_null()
    });

    // A removed folder takes its blueprints with it.
    std::fs::remove_dir_all(service.catalogue.join("teams")).expect("removed");
    service.wait_for_generation(4);
    assert_eq!(listed(&service), ["python-data", "python-web"]);
}

#[test]
fn a_removed_and_recreated_root_is_watched_again() {
    let service = Running::start(&[("all.yaml", &catalogue("v1"))]);
    std::fs::remove_dir_all(&service.catalogue).expect("removed");
    let status = service.wait_for_reload_error();
    assert_eq!(
        status["lastReloadError"]["diagnostics"][0]["code"],
        "io/read"
    );
    assert_eq!(mark_served(&service), (Some(1), "v1".to_owned()));

    write(&service.catalogue.join("all.yaml"), &catalogue("v2"));
    service.wait_for_generation(2);
    assert_eq!(mark_served(&service), (Some(2), "v2".to_owned()));
    // And the new root's watch works.
    replace(&service.catalogue.join("all.yaml"), &catalogue("v3"));
    service.wait_for_generation(3);
}

/// A Kubernetes ConfigMap volume: files are symlinks through `..data`, which
/// is itself a symlink to a timestamped folder; an update writes a new
/// folder and renames a new `..data` over the old one.
#[cfg(unix)]
#[test]
fn a_configmap_data_flip_is_a_new_generation() {
    use std::os::unix::fs::symlink;
    let service = Running::start(&[]);
    let root = service.catalogue.clone();
    let publish = |version: &str, mark: &str| {
        let folder = format!("..2026_11_22_{version}");
        write(&root.join(&folder).join("all.yaml"), &catalogue(mark));
        symlink(&folder, root.join("..data_tmp")).expect("..data_tmp");
        std::fs::rename(root.join("..data_tmp"), root.join("..data")).expect("..data flips");
    };
    publish("01", "cm1");
    symlink("..data/all.yaml", root.join("all.yaml")).expect("all.yaml");
    service.wait_for_generation(1);
    assert_eq!(mark_served(&service), (Some(1), "cm1".to_owned()));

    publish("02", "cm2");
    service.wait_for_generation(2);
    assert_eq!(mark_served(&service), (Some(2), "cm2".to_owned()));
}

#[test]
fn the_users_file_is_reloaded_and_a_broken_one_keeps_the_users() {
    let service = Running::start(&[("all.yaml", &catalogue("v1"))]);
    let bob = "97dd3707015dcf069cf73022ed7173b1165db6eff24b441cb57fd069a8c4e525";
    assert_eq!(service.get("/v1/blueprints", Some("bob-token")).status, 401);
    let with_bob = format!(
        "{}  - {{username: bob, tokenSha256: {bob}, uid: 7, gid: 7, allowedBlueprints: [python-web]}}\n",
        support::USERS
    );
    replace(&service.users, &with_bob);
    service.wait_until("bob to be known", |r| {
        r.get("/v1/blueprints", Some("bob-token")).status == 200
    });
    let answer = service.post(
        "/v1/compose",
        Some("bob-token"),
        &compose_body("python-web"),
    );
    assert_eq!(answer.status, 200, "{}", answer.text);

    replace(&service.users, "users: [{username: broken}]\n");
    service.wait_until("the users error", |r| {
        !r.status()["users"]["lastReloadError"].is_null()
    });
    assert_eq!(service.get("/v1/blueprints", Some("bob-token")).status, 200);
}

#[test]
fn concurrent_composes_during_reloads_each_see_one_generation() {
    const CLIENTS: usize = 4;
    const MAX_REQUESTS_PER_CLIENT: usize = 2_000;
    const REWRITES: usize = 25;
    let service = Arc::new(Running::start(&[("all.yaml", &catalogue("w0"))]));
    // The clients run until the last rewrite is served (or their bounds).
    let done = Arc::new(AtomicBool::new(false));
    let clients: Vec<_> = (0..CLIENTS)
        .map(|_| {
            let service = service.clone();
            let done = done.clone();
            std::thread::spawn(move || {
                let deadline = Instant::now() + PATIENCE;
                let mut seen = Vec::new();
                while !done.load(Ordering::Relaxed)
                    && seen.len() < MAX_REQUESTS_PER_CLIENT
                    && Instant::now() < deadline
                {
                    let answer =
                        service.post("/v1/compose", Some(ALICE), &compose_body("python-data"));
                    seen.push((answer.status, answer.generation, answer.text));
                }
                seen
            })
        })
        .collect();
    let file = service.catalogue.join("all.yaml");
    for round in 1..=REWRITES {
        replace(&file, &catalogue(&format!("w{round}")));
        std::thread::sleep(Duration::from_millis(40));
    }
    service.wait_until("the last rewrite to be served", |r| {
        mark_served(r).1 == format!("w{REWRITES}")
    });
    done.store(true, Ordering::Relaxed);
    let mut by_generation: BTreeMap<u64, BTreeSet<String>> = BTreeMap::new();
    for client in clients {
        for (status, generation, text) in client.join().expect("no client panics") {
            assert_eq!(status, 200, "{text}");
            let generation = generation.expect("every answer names its generation");
            by_generation.entry(generation).or_default().insert(text);
        }
    }
    // Every generation answered with one body, and no two generations with the same.
    let mut marks = BTreeSet::new();
    for (generation, bodies) in &by_generation {
        assert_eq!(
            bodies.len(),
            1,
            "generation {generation} answered differently"
        );
        let body: serde_json::Value =
            serde_json::from_str(bodies.first().expect("a body")).expect("JSON");
        let mark = body["env"]["MARK"].as_str().unwrap_or_default().to_owned();
        assert!(
            marks.insert(mark.clone()),
            "{mark} served by two generations"
        );
    }
    assert!(
        by_generation.len() > 1,
        "the clients saw the reloads: {:?}",
        by_generation.keys()
    );
}

/// A file rewritten in place every 50 ms (truncated, then written 5 ms
/// later) while a client composes from it without pause: no reload may
/// publish the file as it was caught mid-rewrite (empty: valid YAML
/// without the blueprint), so every answer is a 200 with one of the
/// versions written; once the edits stop, the last one is served.
#[test]
fn in_place_rewrites_never_publish_a_file_caught_mid_rewrite() {
    const REWRITES: usize = 60;
    // A reload every 100 ms, at any moment of the writer's cycle: many
    // read the file while it is empty. The settle interval is longer than
    // the writer's 5 ms pause even as a loaded machine's scheduler
    // stretches it (to over 100 ms, seen here), since a file left empty
    // for longer than the settle interval is taken as written.
    let service = Arc::new(Running::start_with(
        &[("all.yaml", &catalogue("r0"))],
        |config| {
            config.max_wait = Duration::from_millis(100);
            config.settle = Duration::from_millis(250);
        },
    ));
    let done = Arc::new(AtomicBool::new(false));
    let client = {
        let service = service.clone();
        let done = done.clone();
        std::thread::spawn(move || {
            let mut answers = Vec::new();
            while !done.load(Ordering::Relaxed) {
                let answer = service.post("/v1/compose", Some(ALICE), &compose_body("python-data"));
                answers.push(answer);
            }
            answers
        })
    };
    let file = service.catalogue.join("all.yaml");
    for round in 1..=REWRITES {
        rewrite_in_place(
            &file,
            &catalogue(&format!("r{round}")),
            Duration::from_millis(5),
        );
        std::thread::sleep(Duration::from_millis(45));
    }
    done.store(true, Ordering::Relaxed);
    let answers = client.join().expect("the client does not panic");
    let written: BTreeSet<String> = (0..=REWRITES).map(|round| format!("r{round}")).collect();
    let mut torn = BTreeMap::new();
    for answer in &answers {
        let mark = (answer.status == 200)
            .then(|| answer.json()["env"]["MARK"].as_str().map(str::to_owned))
            .flatten()
            .filter(|mark| written.contains(mark));
        if mark.is_none() {
            *torn.entry(answer.status).or_insert(0) += 1;
        }
    }
    assert!(
        torn.is_empty(),
        "of {} answers, these statuses had no version written: {torn:?}",
        answers.len()
    );
    service.wait_until("the last rewrite to be served", |r| {
        mark_served(r).1 == format!("r{REWRITES}")
    });
    // Reloads did find the file changing under them, and said so.
    let metrics = service.get("/metrics", None).text;
    let unsettled = metrics
        .lines()
        .find_map(|line| {
            line.strip_prefix(r#"strata_reloads_total{target="catalogue",outcome="unsettled"} "#)
        })
        .and_then(|count| count.parse::<u64>().ok());
    assert!(unsettled.is_some_and(|count| count > 0), "{metrics}");
}

/// Edits 120 ms apart for 4.5 s, each a new file renamed over the old (as
/// editors save), closer together than the 200 ms debounce: the quiet
/// period never comes, and the maximum wait reloads anyway, so the content
/// served advances every second or two while the edits go on.
#[test]
fn edits_closer_than_the_debounce_still_reload_every_second() {
    const REWRITES: usize = 36;
    let service = Running::start_with(&[("all.yaml", &catalogue("e0"))], |config| {
        config.debounce = Duration::from_millis(200);
        config.max_wait = Duration::from_secs(1);
    });
    let file = service.catalogue.join("all.yaml");
    let writer = std::thread::spawn(move || {
        for round in 1..=REWRITES {
            replace(&file, &catalogue(&format!("e{round}")));
            std::thread::sleep(Duration::from_millis(120));
        }
    });
    // What `python-data` says now, when it composes.
    let served = || {
        let answer = service.post("/v1/compose", Some(ALICE), &compose_body("python-data"));
        (answer.status == 200).then(|| answer.json()["env"]["MARK"].clone())
    };
    let started = Instant::now();
    let mut last = (started, served());
    let mut longest = Duration::ZERO;
    while !writer.is_finished() {
        let mark = served();
        let now = Instant::now();
        if mark.is_some() && mark != last.1 {
            longest = longest.max(now - last.0);
            last = (now, mark);
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    longest = longest.max(last.0.elapsed());
    writer.join().expect("the writer does not panic");
    assert!(
        longest <= Duration::from_secs(2),
        "the content served stood still for {longest:?} while edits went on for {:?}",
        started.elapsed()
    );
    service.wait_until("the last rewrite to be served", |r| {
        mark_served(r).1 == format!("e{REWRITES}")
    });
}
