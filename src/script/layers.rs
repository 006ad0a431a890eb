//! The layers a rule set is built from, as mods layer on a base game. Lowest first:
//!
//! 1. **built-in**: the standard game built into rally (its elements, rules, options and
//!    variants), unless the project's `rally.toml` says `base = "none"`;
//! 2. **packs**, in the order the project's `rally.toml` lists them;
//! 3. **project**: the project's own `scripts/` and `variants/` (or `--scripts`/`--variants`).
//!
//! A name a layer defines that no layer beneath it has adds an element, rule, option or
//! variant; a name it shares with a layer it builds on replaces that one, with a notice. The
//! project builds on every layer, a pack on the base; packs are peers, so two packs defining
//! the same name is an error naming both files. Files load layer by layer in this order, so
//! a layer's scripts can build on what is beneath them (`rally.elements.gear`), and the
//! listeners of a hook hear in this order too (`crate::hooks`).

use super::manifest::{self, Base, Manifest, PackEntry};
use crate::error::{Error, Result};
use crate::files::{builtin, display_path};
use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

/// What a layer is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    BuiltIn,
    Pack,
    Project,
}

/// One layer: where its scripts and variants are, and what its manifest says it is.
#[derive(Clone, Debug, PartialEq)]
pub struct Layer {
    pub kind: Kind,
    /// A pack's name (its `rally.toml`'s, else its folder's); a project's, if its manifest
    /// gives one.
    pub name: Option<String>,
    pub version: Option<String>,
    /// The folder holding `elements/`, `rules/` and `options/` (it may not exist yet).
    pub scripts: Option<PathBuf>,
    /// The folder holding one folder per variant (it may not exist yet).
    pub variants: Option<PathBuf>,
    /// Its `rally.toml`, if it has one.
    pub manifest: Option<PathBuf>,
    /// The project folder (canonical) every file it loads must be inside, links followed: a
    /// pack's, and the project's own unless the command line names its folders.
    pub within: Option<PathBuf>,
}

impl Layer {
    pub fn built_in() -> Layer {
        Layer {
            kind: Kind::BuiltIn,
            name: None,
            version: Some(env!("CARGO_PKG_VERSION").to_string()),
            scripts: Some(builtin::folder("scripts")),
            variants: Some(builtin::folder("variants")),
            manifest: None,
            within: None,
        }
    }

    /// Whether a name this layer defines may replace the one `lower` defined: the project
    /// builds on every layer beneath it, a pack on the base. Two packs are peers: which is
    /// listed first must not decide which one's element a board gets.
    pub fn builds_on(&self, lower: &Layer) -> bool {
        matches!(
            (self.kind, lower.kind),
            (Kind::Project, Kind::BuiltIn | Kind::Pack) | (Kind::Pack, Kind::BuiltIn)
        )
    }

    /// Refuses a file of this layer that is outside its project once links are followed (a
    /// script linked to a file elsewhere, a variant listing `../../x.lua`): a project, and
    /// the packs in it, read nothing of the machine they are copied to.
    pub fn check_inside(&self, path: &Path) -> Result<()> {
        let Some(within) = &self.within else {
            return Ok(());
        };
        match path.canonicalize() {
            Ok(real) if !real.starts_with(within) => Err(Error::File {
                file: path.to_path_buf(),
                message: format!(
                    "is outside the project folder {}, and a project (its packs included) reads no file outside it: a link or `..` leading out is refused",
                    shown_folder(within)
                ),
            }),
            // A file that cannot be found is reported when it is read.
            _ => Ok(()),
        }
    }

    /// The folders of this layer anyone may edit: none for the built-in base.
    pub fn folders(&self) -> Vec<&Path> {
        if self.kind == Kind::BuiltIn {
            return Vec::new();
        }
        [&self.scripts, &self.variants]
            .into_iter()
            .flatten()
            .map(PathBuf::as_path)
            .collect()
    }

    /// The layer and where it is, for messages: `built-in`, `pack doors (packs/doors)`,
    /// `project (scripts, variants)`.
    pub fn describe(&self) -> String {
        self.described(self.to_string())
    }

    /// As [`Layer::describe`], with the version: `pack doors 1.2 (packs/doors)`.
    pub fn describe_with_version(&self) -> String {
        match &self.version {
            Some(v) => self.described(format!("{self} {v}")),
            None => self.describe(),
        }
    }

    fn described(&self, title: String) -> String {
        let place: Vec<String> = match self.kind {
            Kind::BuiltIn => return title,
            Kind::Pack => self
                .manifest
                .as_ref()
                .and_then(|m| m.parent())
                .or_else(|| self.scripts.as_ref().and_then(|s| s.parent()))
                .map(shown_folder)
                .into_iter()
                .collect(),
            Kind::Project => {
                let existing: Vec<String> = self
                    .folders()
                    .into_iter()
                    .filter(|f| f.is_dir())
                    .map(shown_folder)
                    .collect();
                match (&existing[..], &self.manifest) {
                    ([], Some(m)) => vec![display_path(m)],
                    ([], None) => self
                        .scripts
                        .iter()
                        .map(|s| format!("{}, not there", shown_folder(s)))
                        .collect(),
                    _ => existing,
                }
            }
        };
        format!("{title} ({})", place.join(", "))
    }

    /// A file of this layer as a rules hash names it: its place in the layer
    /// (`scripts/elements/gear.lua`, `variants/ice-rink/variant.toml`, `rally.toml`) after
    /// the layer's (`built-in/`, `packs/doors/`, none for the project), so that the same
    /// rules in other folders on other machines have the same names.
    pub fn file_name(&self, path: &Path) -> String {
        let prefix = match self.kind {
            Kind::BuiltIn => "built-in/".to_string(),
            Kind::Pack => format!("packs/{}/", self.name.as_deref().unwrap_or("")),
            Kind::Project => String::new(),
        };
        let under = |root: &Option<PathBuf>, name: &str| -> Option<String> {
            let rest = path.strip_prefix(root.as_ref()?).ok()?;
            let parts: Vec<String> = rest
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect();
            Some(format!("{name}/{}", parts.join("/")))
        };
        let inside = under(&self.scripts, "scripts")
            .or_else(|| under(&self.variants, "variants"))
            .or_else(|| {
                (self.manifest.as_deref() == Some(path)).then(|| manifest::FILE.to_string())
            })
            .unwrap_or_else(|| path.display().to_string());
        format!("{prefix}{inside}")
    }
}

/// `built-in`, `pack doors`, `project`: how catalogues and notices name a layer.
impl fmt::Display for Layer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.kind {
            Kind::BuiltIn => write!(f, "built-in"),
            Kind::Pack => write!(f, "pack {}", self.name.as_deref().unwrap_or("?")),
            Kind::Project => write!(f, "project"),
        }
    }
}

fn shown_folder(path: &Path) -> String {
    match display_path(path) {
        s if s.is_empty() => ".".into(),
        s => s,
    }
}

/// Whether `dir` holds scripts: `elements/`, `rules/` or `options/` (so that an unrelated
/// `~/scripts` of shell scripts is not taken for rules).
pub fn holds_scripts(dir: &Path) -> bool {
    ["elements", "rules", "options"]
        .iter()
        .any(|sub| crate::files::is_dir(&dir.join(sub)))
}

/// Whether `dir` holds variants: a `*/variant.toml`.
pub fn holds_variants(dir: &Path) -> bool {
    crate::files::list(dir).iter().any(|v| is_variant(v))
}

/// Whether `dir` is a variant's folder: it has a `variant.toml`. Anything of that name
/// counts, to be read (and refused if it is not a regular file), not passed over.
fn is_variant(dir: &Path) -> bool {
    let file = dir.join("variant.toml");
    crate::files::is_file(&file) || file.exists()
}

/// The project whose layers a rule set is built from: where it is and which of its folders
/// the command line names. Its layers are worked out from its `rally.toml` each time the
/// rules are built ([`Project::layers`]), so a hot reload sees an edited manifest.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Project {
    /// Its root folder: where `rally.toml` is, if it has one, and `scripts/` and
    /// `variants/`. `None`: no project was found, the built-in rules stand alone.
    pub root: Option<PathBuf>,
    /// The project layer's scripts and variants folders when `--scripts` and `--variants`
    /// name them; else the root's `scripts/` and `variants/`.
    pub scripts: Option<PathBuf>,
    pub variants: Option<PathBuf>,
}

impl Project {
    /// The project whose folders are these (tests and tools with folders of their own).
    pub fn folders(scripts: impl Into<PathBuf>, variants: impl Into<PathBuf>) -> Project {
        Project {
            root: None,
            scripts: Some(scripts.into()),
            variants: Some(variants.into()),
        }
    }

    /// Its `rally.toml`, where it would be.
    pub fn manifest_path(&self) -> Option<PathBuf> {
        Some(self.root.as_ref()?.join(manifest::FILE))
    }

    /// The layers, lowest first: the base, the packs the manifest lists (each checked), the
    /// project's own folders.
    pub fn layers(&self) -> Result<Vec<Layer>> {
        let manifest = match &self.root {
            Some(root) => Manifest::find(root)?,
            None => None,
        };
        let inside = self.root.as_ref().and_then(|r| manifest::canonical(r).ok());
        let mut layers = Vec::new();
        if manifest.as_ref().is_none_or(|m| m.base == Base::Standard) {
            layers.push(Layer::built_in());
        }
        if let (Some(m), Some(root)) = (&manifest, &self.root) {
            for entry in m.packs(root)? {
                let pack = pack_layer(&entry, m, inside.clone())?;
                if let Some(other) = layers
                    .iter()
                    .find(|l| l.kind == Kind::Pack && l.name == pack.name)
                {
                    return Err(m.error_at(
                        entry.at,
                        format!(
                            "pack `{}` is called `{}`, as is {}: two packs need two names (`name` in a pack's rally.toml)",
                            entry.written,
                            pack.name.as_deref().unwrap_or_default(),
                            other.describe()
                        ),
                    ));
                }
                layers.push(pack);
            }
        }
        layers.extend(self.own_layer(manifest.as_ref()).map(|mut own| {
            if self.scripts.is_none() && self.variants.is_none() {
                own.within = inside;
            }
            own
        }));
        Ok(layers)
    }

    /// The layers, or when they do not load (a broken `rally.toml`), the project's own
    /// folders alone: what a watcher looks at, to see the fix.
    pub fn layers_to_watch(&self) -> Vec<Layer> {
        self.layers()
            .unwrap_or_else(|_| self.own_layer(None).into_iter().collect())
    }

    /// The project layer: its scripts and variants folders, and what its manifest says.
    fn own_layer(&self, manifest: Option<&Manifest>) -> Option<Layer> {
        let root_folder = |name: &str| self.root.as_ref().map(|r| r.join(name));
        let scripts = self.scripts.clone().or_else(|| root_folder("scripts"));
        let variants = self.variants.clone().or_else(|| root_folder("variants"));
        if scripts.is_none() && variants.is_none() {
            return None;
        }
        Some(Layer {
            kind: Kind::Project,
            name: manifest.and_then(|m| m.name.clone()),
            version: manifest.and_then(|m| m.version.clone()),
            scripts,
            variants,
            manifest: manifest.map(|m| m.path().to_path_buf()),
            within: None,
        })
    }
}

/// The layer of a pack a project's manifest names: checked to hold rules, named by its own
/// manifest (which may not name packs or a base) or its folder.
fn pack_layer(entry: &PackEntry, project: &Manifest, within: Option<PathBuf>) -> Result<Layer> {
    let mut layer = Layer {
        kind: Kind::Pack,
        name: None,
        version: None,
        scripts: Some(entry.dir.join("scripts")),
        variants: Some(entry.dir.join("variants")),
        manifest: None,
        within,
    };
    layer.check_inside(&entry.dir.join(manifest::FILE))?;
    let own = Manifest::find(&entry.dir)?;
    if let Some(m) = &own {
        m.check_as_pack()?;
    }
    if !holds_scripts(&entry.dir.join("scripts")) && !holds_variants(&entry.dir.join("variants")) {
        return Err(project.error_at(
            entry.at,
            format!(
                "pack `{}` holds no rules: expected scripts/elements/, scripts/rules/, scripts/options/ or variants/NAME/variant.toml in {}",
                entry.written,
                shown_folder(&entry.dir)
            ),
        ));
    }
    let name = match own.as_ref().and_then(|m| m.name.clone()) {
        Some(name) => name,
        None => {
            let folder = entry
                .dir
                .canonicalize()
                .ok()
                .and_then(|d| d.file_name().map(|n| n.to_string_lossy().into_owned()))
                .unwrap_or_default();
            if !manifest::is_name(&folder) {
                return Err(project.error_at(
                    entry.at,
                    format!(
                        "pack `{}`: its folder's name `{}` cannot name it (letters, digits, - and _): give it a `name` in its own rally.toml",
                        entry.written,
                        crate::text::clean_line(&folder)
                    ),
                ));
            }
            folder
        }
    };
    layer.name = Some(name);
    layer.version = own.as_ref().and_then(|m| m.version.clone());
    layer.manifest = own.map(|m| m.path().to_path_buf());
    Ok(layer)
}

/// The layers as a list for messages, lowest first.
pub fn describe(layers: &[Layer]) -> String {
    list(layers, Layer::describe)
}

/// The layers as a list, each described by `each`, and a word when there is no base.
pub fn list(layers: &[Layer], each: fn(&Layer) -> String) -> String {
    let mut text = layers.iter().map(each).collect::<Vec<_>>().join(", ");
    if text.is_empty() {
        text = "none".into();
    }
    if !layers.iter().any(|l| l.kind == Kind::BuiltIn) {
        text.push_str(" (no built-in base: rally.toml says base = \"none\")");
    }
    text
}

/// A variant the layers offer: the top layer's folder of that name, and the folder of the
/// layer beneath it replaces, if any.
#[derive(Clone, Debug)]
pub struct Offered {
    pub name: String,
    pub dir: PathBuf,
    /// Its layer (an index into the layers).
    pub layer: usize,
    pub replaces: Option<(usize, PathBuf)>,
}

/// Every variant the layers offer, by folder name: a layer's variant replaces one of the
/// same name in a layer it builds on; two packs offering the same name is an error naming
/// both.
pub fn offered_variants(layers: &[Layer]) -> Result<Vec<Offered>> {
    let mut by_name: BTreeMap<String, Offered> = BTreeMap::new();
    for (i, layer) in layers.iter().enumerate() {
        let Some(root) = &layer.variants else {
            continue;
        };
        let dirs = crate::files::list(root)
            .into_iter()
            .filter(|d| is_variant(d));
        for dir in dirs {
            layer.check_inside(&dir.join("variant.toml"))?;
            let name = dir
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            let replaces = match by_name.get(&name) {
                None => None,
                Some(old) if layer.builds_on(&layers[old.layer]) => {
                    Some((old.layer, old.dir.clone()))
                }
                Some(old) => {
                    return Err(Error::Other(format!(
                        "variant `{name}` is defined twice, by {} ({}) and by {} ({}): two packs may not define the same name (the project may replace either)",
                        layers[old.layer],
                        display_path(&old.dir.join("variant.toml")),
                        layer,
                        display_path(&dir.join("variant.toml"))
                    )))
                }
            };
            by_name.insert(
                name.clone(),
                Offered {
                    name,
                    dir,
                    layer: i,
                    replaces,
                },
            );
        }
    }
    Ok(by_name.into_values().collect())
}

/// A name a higher layer defines again, replacing a lower layer's.
#[derive(Clone, Debug, PartialEq)]
pub struct Replaced {
    /// `element`, `rule`, `option` or `variant`.
    pub kind: &'static str,
    pub name: String,
    /// The file (or a variant's folder) that replaces it, as shown.
    pub file: String,
    /// The layer that replaces it and the one whose definition it replaces.
    pub layer: usize,
    pub over: usize,
    /// The file is an unchanged copy of the one it replaces (the variant's files all are):
    /// nothing changes, so no notice is given.
    pub unchanged: bool,
}

impl Replaced {
    /// `project: scripts/elements/gear.lua replaces element `gear` (built-in)`.
    pub fn notice(&self, layers: &[Layer]) -> String {
        format!(
            "{}: {} replaces {} `{}` ({})",
            layers[self.layer], self.file, self.kind, self.name, layers[self.over]
        )
    }
}

/// Whether two files hold the same bytes: a copy of a built-in script, unchanged, replaces
/// it without a notice (nothing changes; a project that copied the standard rules before
/// they were layered hears about a file only once it differs from rally's own).
pub fn same_file(a: &Path, b: &Path) -> bool {
    matches!(
        (crate::files::read_bytes(a), crate::files::read_bytes(b)),
        (Ok(x), Ok(y)) if x == y
    )
}

/// Whether `ours`, the scripts of `layer`, are the scripts `theirs` of `lower`, each at the
/// same place in its scripts folder with the same bytes.
pub fn copies(layer: &Layer, ours: &[PathBuf], lower: &Layer, theirs: &[PathBuf]) -> bool {
    let (Some(our_root), Some(their_root)) = (&layer.scripts, &lower.scripts) else {
        return false;
    };
    ours.len() == theirs.len()
        && ours.iter().zip(theirs).all(|(a, b)| {
            a.strip_prefix(our_root).ok() == b.strip_prefix(their_root).ok() && same_file(a, b)
        })
}

/// Whether two folders (variants) hold the same files with the same bytes, not looking into
/// folders inside them.
pub fn same_folder(a: &Path, b: &Path) -> bool {
    let files = |dir: &Path| -> Vec<PathBuf> {
        crate::files::list(dir)
            .into_iter()
            .filter(|f| crate::files::is_file(f))
            .collect()
    };
    let (ours, theirs) = (files(a), files(b));
    ours.len() == theirs.len()
        && ours
            .iter()
            .zip(&theirs)
            .all(|(x, y)| x.file_name() == y.file_name() && same_file(x, y))
}
