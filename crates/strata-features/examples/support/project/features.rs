//! The feature files: each merges into, replaces and adds components and
//! kustomizations of the base blueprint, some entries with their own
//! `when`.

use fastrand::Rng;

use super::conditions::condition;
use super::yaml::{Y, document, flow, m, r, s};
use super::{
    AREAS, Base, FILE_EVERY, INPUT_KEYS, SUFFIXES, TOGGLES, VARIANTS, cycled, earlier,
    inline_patch, input_value, literal_input, pick, substitutions,
};

pub(super) struct Feature {
    pub(super) name: String,
    pub(super) path: String,
    pub(super) text: String,
    pub(super) applies: bool,
    pub(super) added_terraform: usize,
    pub(super) added_kustomize: usize,
    pub(super) file_calls: usize,
}

/// What one feature is written from.
pub(super) struct Writer<'a> {
    rng: Rng,
    toggles: &'a [bool],
    base: &'a Base,
    toggle: &'static str,
    suffix: String,
    slug: String,
    name: String,
}

impl Writer<'_> {
    /// Merges into one to three base components, now and then replacing one
    /// (keeping its name, path and source).
    fn terraform_merges(&mut self) -> Vec<Y> {
        let rng = &mut self.rng;
        let mut entries = Vec::new();
        let mut targets: Vec<usize> = Vec::new();
        for _ in 0..=rng.usize(..3) {
            let t = rng.usize(1..self.base.terraform.len());
            if targets.contains(&t) {
                continue;
            }
            targets.push(t);
            let target = &self.base.terraform[t];
            let mut entry = target.identity();
            if rng.u32(..10) == 0 {
                entry.push(("strategy".to_owned(), s("replace")));
            } else if rng.u32(..4) == 0 {
                entry.push(("strategy".to_owned(), s("merge")));
            }
            let mut inputs = Vec::new();
            for _ in 0..2 + rng.usize(..4) {
                let key = *pick(rng, &INPUT_KEYS);
                if !inputs.iter().any(|(k, _): &(String, Y)| k == key) {
                    inputs.push((key.to_owned(), input_value(rng, key)));
                }
            }
            if rng.bool() {
                // Literal keys are not among `INPUT_KEYS`.
                inputs.push(literal_input(rng, &target.path));
            }
            entry.push(("inputs".to_owned(), Y::M(inputs)));
            let depends = earlier(rng, t, 30, 2);
            if !depends.is_empty() {
                entry.push((
                    "dependsOn".to_owned(),
                    flow(depends.iter().map(|&j| self.base.terraform[j].id())),
                ));
            }
            entries.push(Y::M(entry));
        }
        entries
    }

    /// Up to two components of the feature's own, and how many of them hold.
    fn terraform_own(&mut self) -> (Vec<Y>, usize) {
        let (slug, suffix) = (self.slug.as_str(), self.suffix.as_str());
        let rng = &mut self.rng;
        let mut entries = Vec::new();
        let mut added = 0;
        for n in 0..rng.usize(..3) {
            let mut entry = Vec::new();
            let conditional = rng.u32(..5) == 0;
            let holds = !conditional || rng.u32(..4) != 0;
            if rng.bool() {
                entry.push(("name".to_owned(), s(format!("{}-{n}", self.name))));
            }
            let module = ["module", "iam", "storage"][n];
            entry.push((
                "path".to_owned(),
                s(format!("addons/{slug}/{suffix}/{module}")),
            ));
            entry.push(("source".to_owned(), s("platform")));
            if conditional {
                entry.push(("when".to_owned(), s(condition(rng, self.toggles, holds, 1))));
            }
            let on = rng.usize(..self.base.terraform.len());
            entry.push((
                "dependsOn".to_owned(),
                flow([
                    self.base.terraform[on].id(),
                    self.base.terraform[on / 2].id(),
                ]),
            ));
            let mut inputs = vec![
                (
                    "name".to_owned(),
                    s(format!("${{cluster.name}}-{slug}-{n}")),
                ),
                (
                    "enabled".to_owned(),
                    s(format!("${{toggles.{} ?? false}}", self.toggle)),
                ),
            ];
            for _ in 0..2 + rng.usize(..3) {
                let key = *pick(rng, &INPUT_KEYS);
                if !inputs.iter().any(|(k, _)| k == key) {
                    inputs.push((key.to_owned(), input_value(rng, key)));
                }
            }
            let (key, value) = literal_input(rng, slug);
            if !inputs.iter().any(|(k, _)| *k == key) {
                inputs.push((key, value));
            }
            entry.push(("inputs".to_owned(), Y::M(inputs)));
            entries.push(Y::M(entry));
            added += usize::from(holds);
        }
        (entries, added)
    }

    /// Merges into one or two base kustomizations, now and then replacing
    /// one; the first reads `ca` with `file()` when given.
    fn kustomize_merges(&mut self, mut ca: Option<&str>) -> Vec<Y> {
        let (slug, suffix) = (self.slug.as_str(), self.suffix.as_str());
        let rng = &mut self.rng;
        let mut entries = Vec::new();
        let mut targets: Vec<usize> = Vec::new();
        for _ in 0..=rng.usize(..2) {
            let k = rng.usize(1..self.base.kustomize.len());
            if targets.contains(&k) {
                continue;
            }
            targets.push(k);
            let (target, source) = &self.base.kustomize[k];
            let area = cycled(&AREAS, k / VARIANTS.len());
            let mut entry = vec![("name".to_owned(), s(target.as_str()))];
            let replace = rng.u32(..10) == 0;
            if replace {
                entry.push(("strategy".to_owned(), s("replace")));
                entry.push(("path".to_owned(), s(format!("{area}/{suffix}"))));
                entry.push(("source".to_owned(), s(*source)));
                entry.push(("interval".to_owned(), s("5m")));
            }
            entry.push((
                "components".to_owned(),
                Y::L(vec![
                    s(format!("{area}/{slug}")),
                    s(format!("{area}/{suffix}")),
                ]),
            ));
            let depends = earlier(rng, k, 10, 2);
            if !depends.is_empty() {
                entry.push((
                    "dependsOn".to_owned(),
                    flow(depends.iter().map(|&j| self.base.kustomize[j].0.as_str())),
                ));
            }
            entry.push((
                "substitutions".to_owned(),
                substitutions(rng, &area, ca.take()),
            ));
            entry.push(("patches".to_owned(), Y::L(vec![inline_patch(rng, &area)])));
            if !replace && rng.bool() {
                entry.push(("timeout".to_owned(), s("15m")));
                entry.push(("wait".to_owned(), r(true)));
            }
            entries.push(Y::M(entry));
        }
        entries
    }

    /// Now and then a kustomization of the feature's own, and whether it
    /// holds.
    fn kustomization_own(&mut self) -> Option<(Y, bool)> {
        let (slug, suffix) = (self.slug.as_str(), self.suffix.as_str());
        let rng = &mut self.rng;
        if !rng.bool() {
            return None;
        }
        let conditional = rng.u32(..5) == 0;
        let holds = !conditional || rng.u32(..4) != 0;
        let on = rng.usize(..self.base.kustomize.len());
        let mut entry = vec![
            ("name".to_owned(), s(self.name.as_str())),
            ("path".to_owned(), s(format!("addons/{slug}"))),
            ("source".to_owned(), s("platform")),
        ];
        if conditional {
            entry.push(("when".to_owned(), s(condition(rng, self.toggles, holds, 1))));
        }
        entry.push((
            "dependsOn".to_owned(),
            flow([self.base.kustomize[on].0.as_str()]),
        ));
        entry.push((
            "components".to_owned(),
            Y::L(vec![
                s(format!("{slug}/base")),
                s(format!("{slug}/{suffix}")),
            ]),
        ));
        entry.push(("substitutions".to_owned(), substitutions(rng, slug, None)));
        entry.push(("patches".to_owned(), Y::L(vec![inline_patch(rng, slug)])));
        entry.push(("interval".to_owned(), s("10m")));
        entry.push(("prune".to_owned(), r(true)));
        Some((Y::M(entry), holds))
    }
}

pub(super) fn feature(index: usize, toggles: &[bool], base: &Base) -> Feature {
    let toggle = TOGGLES[index % TOGGLES.len()];
    let suffix = cycled(&SUFFIXES, index / TOGGLES.len());
    let slug = toggle.replace('_', "-");
    let name = format!("{slug}-{suffix}");
    let path = match index % 5 {
        1 => format!("features/platform/{name}.yaml"),
        2 => format!("features/addons/{slug}/{suffix}.yaml"),
        3 => format!("features/observability/{name}.yaml"),
        _ => format!("features/{name}.yaml"),
    };
    let ca = format!("{}certs/ca.crt", "../".repeat(path.matches('/').count()));
    let reads_file = index.is_multiple_of(FILE_EVERY);

    let mut writer = Writer {
        rng: Rng::with_seed(1_000 + u64::try_from(index).unwrap_or(u64::MAX)),
        toggles,
        base,
        toggle,
        suffix: suffix.clone(),
        slug,
        name,
    };
    let applies = writer.rng.u32(..3) != 0;
    let when = condition(&mut writer.rng, toggles, applies, 2);
    let mut terraform = writer.terraform_merges();
    let (own, added_terraform) = writer.terraform_own();
    terraform.extend(own);
    let mut kustomize = writer.kustomize_merges(reads_file.then_some(ca.as_str()));
    let mut added_kustomize = 0;
    if let Some((own, holds)) = writer.kustomization_own() {
        kustomize.push(own);
        added_kustomize += usize::from(holds);
    }

    let name = writer.name;
    let text = format!(
        "# Feature {index}: {name}.\n{}",
        document(&[
            ("kind".to_owned(), s("Feature")),
            (
                "apiVersion".to_owned(),
                s("blueprints.windsorcli.dev/v1alpha1"),
            ),
            (
                "metadata".to_owned(),
                m([
                    ("name", s(name.as_str())),
                    (
                        "description",
                        s(format!("{toggle} ({suffix}), when the context asks for it")),
                    ),
                ]),
            ),
            ("when".to_owned(), s(when)),
            ("terraform".to_owned(), Y::L(terraform)),
            ("kustomize".to_owned(), Y::L(kustomize)),
        ])
    );
    Feature {
        name,
        path,
        text,
        applies,
        added_terraform,
        added_kustomize,
        file_calls: usize::from(reads_file),
    }
}
