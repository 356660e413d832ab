//! Which dialect and project a file belongs to, as the registry finds it:
//! what the language server asks of every file it is shown.

use std::path::{Path, PathBuf};

use strata_dialect::Target;

/// The dialect's name and the project of `path` holding `text`, with the
/// files of `markers` on disk.
fn find(path: &str, text: &str, markers: &[&str]) -> Option<(&'static str, Target)> {
    let registry = strata_dialects::registry();
    let exists = |file: &Path| markers.iter().any(|marker| Path::new(marker) == file);
    registry
        .find(Path::new(path), text, exists)
        .map(|(entry, target)| (entry.name, target))
}

#[test]
fn the_nearest_marker_decides() {
    let markers = ["/work/app/qbec.yaml", "/work/.strata.yaml"];
    assert_eq!(
        find("/work/app/components/a.jsonnet", "{}", &markers),
        Some(("components", Target::folder("/work/app")))
    );
    assert_eq!(
        find("/work/blueprints/a.yaml", "name: a", &markers),
        Some(("platform", Target::folder("/work")))
    );
    assert_eq!(
        find(
            "/w/contexts/_template/features/a.yaml",
            "",
            &["/w/windsor.yaml"]
        ),
        Some(("features", Target::folder("/w")))
    );
    assert_eq!(find("/elsewhere/a.yaml", "a: 1", &markers), None);
}

#[test]
fn spec_and_capabilities_files_say_what_they_are() {
    assert_eq!(
        find(
            "/b/blueprint.yaml",
            "version: 2023-04-20\nresources: {}",
            &[]
        ),
        Some(("spec", Target::file("/b", "blueprint.yaml")))
    );
    assert_eq!(
        find(
            "/b/blueprint.json",
            "{\n  \"version\": \"2023-04-20\",\n",
            &[]
        ),
        Some(("spec", Target::file("/b", "blueprint.json")))
    );
    let application = "apiVersion: launcher.gokure.dev/v1alpha1\nkind: Application\n";
    assert_eq!(
        find("/shop/app.yaml", application, &[]),
        Some(("capabilities", Target::folder("/shop")))
    );
    let definition = "apiVersion: launcher.gokure.dev/v1alpha1\nkind: CapabilityDefinition\n";
    assert_eq!(
        find("/shop/definitions/redis.yaml", definition, &[]),
        Some(("capabilities", Target::folder("/shop")))
    );
    // A profile is not a package's file.
    let profile = "apiVersion: launcher.gokure.dev/v1alpha1\nkind: ClusterProfile\n";
    assert_eq!(find("/c/profile.yaml", profile, &[]), None);
    // A misspelt kind is still the package's, to be reported there.
    let misspelt = "apiVersion: launcher.gokure.dev/v1alpha1\nkind: Applicaton\n";
    assert_eq!(
        find("/shop/app.yaml", misspelt, &[]).map(|(name, _)| name),
        Some("capabilities")
    );
    // What a file says wins over a marker above it.
    assert_eq!(
        find(
            "/work/b.yaml",
            "version: 2023-04-20\n",
            &["/work/.strata.yaml"]
        ),
        Some(("spec", Target::file("/work", "b.yaml")))
    );
}

#[test]
fn a_configured_root_makes_each_file_below_a_spec_blueprint() {
    let registry = strata_dialects::registry();
    let spec = registry.get("spec").unwrap();
    assert_eq!(
        spec.configured(
            Path::new("/work/spec"),
            Path::new("/work/spec/child/b.yaml")
        ),
        Some(Target::file("/work/spec", PathBuf::from("child/b.yaml")))
    );
    let platform = registry.get("platform").unwrap();
    assert_eq!(
        platform.configured(Path::new("/work"), Path::new("/work/a/b.yaml")),
        Some(Target::folder("/work"))
    );
    let names: Vec<&str> = registry.entries().iter().map(|entry| entry.name).collect();
    assert_eq!(
        names,
        ["platform", "components", "features", "capabilities", "spec"]
    );
}
