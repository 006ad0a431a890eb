//! The Lua host: builds a sandboxed rule set from the element scripts and the switched-on
//! variants. A rule set is immutable once built; hot reload builds a new one off to the side
//! and swaps it in whole (design.md principle 7), so no Lua handle outlives its rule set.

pub(crate) mod args;
mod bytecode;
pub mod check;
pub(crate) mod decl;
pub mod draw;
mod folders;
pub mod layers;
pub mod manifest;
mod pattern;
pub mod reference;
pub(crate) mod sandbox;
pub(crate) mod store;
mod upvalues;
pub mod variant;
pub mod views;

pub use decl::{ElementDef, OptionDef, RuleDef};
pub use folders::RuleFolders;
pub use layers::{Layer, Project};

use crate::board::params::ParamSpecs;
use crate::board::{Blocking, Catalogue, Facts, Start, Tile};
use crate::error::{Error, Result};
use crate::files::display_path;
use crate::geometry::{Dir, Pos};
use crate::hooks::{Hook, Listener};
use crate::order::Step;
use crate::script::variant::{Choice, Variant};
use decl::Replace;
use mlua::{Lua, LuaSerdeExt, Table, UserDataMethods, Value};
use sandbox::Budget;
use serde_json::{Map, Value as Json};
use std::cell::RefCell;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::rc::Rc;
use views::View;

/// Where a rule set's scripts come from: a project (its layers are read from it each time
/// the rules are built) and the variants switched on.
#[derive(Clone, Debug)]
pub struct Sources {
    pub project: Project,
    pub choices: Vec<Choice>,
}

/// One complete, loaded set of rules: a Lua state and everything its scripts declared.
pub struct RuleSet {
    pub lua: Lua,
    pub budget: Rc<Budget>,
    pub defs: Rc<Defs>,
}

impl std::ops::Deref for RuleSet {
    type Target = Defs;
    fn deref(&self) -> &Defs {
        &self.defs
    }
}

/// What the scripts of a rule set declared: the order of play, elements, rules, variants.
pub struct Defs {
    pub order: Vec<Step>,
    step_index: HashMap<String, usize>,
    pub elements: Vec<ElementDef>,
    element_index: HashMap<String, usize>,
    pub rules: Vec<RuleDef>,
    /// The option cards (rules.md §6.6), in load order.
    pub options: Vec<OptionDef>,
    pub variants: Vec<(Variant, Map<String, Json>)>,
    /// Every file the rules were read from (manifests, `variant.toml`s, scripts), in the
    /// order read: what a rules hash covers.
    pub files: Vec<RuleFile>,
    /// Where they were found.
    pub sources: Sources,
    /// The layers they were built from, lowest first (`layers`); each declaration's `layer`
    /// is an index into them.
    pub layers: Vec<Layer>,
    /// The names a layer defined again, replacing a lower layer's.
    pub replaced: Vec<layers::Replaced>,
    /// The sentences of the events scripts log, from every declaration's `events` (a higher
    /// layer's sentence for an event replaces a lower one's).
    pub sentences: crate::text::sentence::Sentences,
}

/// A file the rules were read from, and its name in a rules hash ([`Layer::file_name`]).
#[derive(Clone, Debug)]
pub struct RuleFile {
    pub path: PathBuf,
    pub name: String,
}

/// The text of an mlua error, without the Rust wrapping: scripts' errors already begin
/// with `file.lua:line:`. Control characters a script put in its message are escaped.
pub fn lua_message(e: &mlua::Error) -> String {
    crate::text::clean(&raw_message(e)).into_owned()
}

fn raw_message(e: &mlua::Error) -> String {
    match e {
        mlua::Error::CallbackError { cause, traceback } => match cause.as_ref() {
            mlua::Error::BadArgument {
                to,
                pos,
                name,
                cause,
            } => args::bad_argument(to.as_deref(), *pos, name.as_deref(), cause, traceback),
            _ => raw_message(cause),
        },
        mlua::Error::WithContext { context, cause } => format!("{context}: {}", raw_message(cause)),
        // A script's own error: `file.lua:line: message`; the Lua traceback after it repeats
        // what the caller already says (element, hook, robot, register), so it is left out.
        mlua::Error::RuntimeError(m) => {
            let m = m.split("\nstack traceback:").next().unwrap_or(m);
            // Lua's own words for a recursion that ran out of stack before any limit.
            if m.ends_with("stack overflow") {
                format!("{m}: too deep: endless recursion?")
            } else {
                m.to_string()
            }
        }
        mlua::Error::SyntaxError { message, .. } => message.clone(),
        mlua::Error::MemoryError(_) => sandbox::memory_message(),
        other => other.to_string(),
    }
}

/// An error raised by a native function: a message that already points into the calling
/// script (an unknown key's own line and column) keeps its place; any other is located at
/// the call.
fn placed(lua: &Lua, message: String) -> mlua::Error {
    match sandbox::script_frame(lua, 1) {
        Some((file, _)) if message.starts_with(&format!("{file}:")) => {
            mlua::Error::runtime(message)
        }
        _ => located(lua, message),
    }
}

/// An error raised by a native function, located at the Lua line that called it.
pub fn located(lua: &Lua, message: impl std::fmt::Display) -> mlua::Error {
    mlua::Error::runtime(format!("{}{message}", sandbox::place(lua, 1)))
}

#[derive(Default)]
struct Collected {
    elements: Vec<(ElementDef, Replace)>,
    rules: Vec<(RuleDef, Replace)>,
    options: Vec<(OptionDef, Replace)>,
    /// The declaration tables as the script wrote them: what it keeps (`views::keep`).
    tables: Vec<Value>,
}

/// The `.lua` files in `dir` (on disk or built in), sorted. A folder in it is refused: each
/// element, rule or option is one file of the folder, and a script in a subfolder would
/// never be loaded (nor watched) without a word.
fn lua_files(dir: &Path) -> Result<Vec<PathBuf>> {
    let found = crate::files::list(dir);
    if let Some(sub) = found.iter().find(|p| crate::files::is_dir(p)) {
        let kind = dir
            .file_name()
            .map(|n| n.to_string_lossy())
            .unwrap_or_default();
        return Err(Error::File {
            file: sub.clone(),
            message: format!(
                "is a folder: scripts are not read from subfolders of {kind}/ (each one is a single .lua file in {}/); move its files up or out",
                display_path(dir)
            ),
        });
    }
    Ok(found
        .into_iter()
        .filter(|p| p.extension().is_some_and(|x| x == "lua"))
        .collect())
}

impl RuleSet {
    pub fn load(sources: &Sources) -> Result<RuleSet> {
        let layers = sources.project.layers()?;
        let offered = layers::offered_variants(&layers)?;
        let variants = variant::select(
            &variant::Offer {
                offered: &offered,
                layers: &layers,
            },
            &sources.choices,
        )?;
        let mut order = crate::order::standard();
        for (variant, _) in &variants {
            for step in &variant.steps {
                crate::order::insert(&mut order, step).map_err(|m| Error::File {
                    file: variant.dir.join("variant.toml"),
                    message: m,
                })?;
            }
        }
        let steps = Rc::new(RefCell::new(crate::order::Steps::new(order)));

        let budget = Rc::new(Budget::new());
        let lua = sandbox::new_lua(budget.clone()).map_err(|e| Error::Script(lua_message(&e)))?;
        Keys::install(&lua).map_err(|e| Error::Script(lua_message(&e)))?;
        TileMisses::install(&lua).map_err(|e| Error::Script(lua_message(&e)))?;
        let collected = Rc::new(RefCell::new(Collected::default()));
        let current_file = Rc::new(RefCell::new(String::new()));
        let script_err = |e: mlua::Error| Error::Script(lua_message(&e));

        let rally = lua.create_table().map_err(script_err)?;
        // `rally.elements.NAME` / `rally.rules.NAME`: the declaration tables loaded so far, so
        // a variant can build on a standard element or rule (reuse its params, call its
        // handlers around its own) instead of copying it. Reading an unknown name is an error;
        // scripts see them read-only, the host adds to them.
        let mut registries = Vec::new();
        for name in ["elements", "rules", "options"] {
            let declared = lua.create_table().map_err(script_err)?;
            sandbox::strict(&lua, &declared, move |key| {
                format!("`rally.{name}.{key}` does not exist")
            })
            .map_err(script_err)?;
            let (view, cache) = views::declarations(&lua, declared.clone()).map_err(script_err)?;
            rally.raw_set(name, view).map_err(script_err)?;
            registries.push(Declared { declared, cache });
        }
        let [elements, rules, options]: [Declared; 3] =
            registries.try_into().ok().expect("three registries");
        let declarer = Declarer {
            file: current_file.clone(),
            steps: steps.clone(),
            collected: collected.clone(),
        };
        declarer
            .install(
                &lua,
                &rally,
                "element",
                elements,
                decl::parse_element,
                |c, d| c.elements.push(d),
            )
            .map_err(script_err)?;
        declarer
            .install(&lua, &rally, "rule", rules, decl::parse_rule, |c, d| {
                c.rules.push(d)
            })
            .map_err(script_err)?;
        declarer
            .install(
                &lua,
                &rally,
                "option",
                options,
                decl::parse_option,
                |c, d| c.options.push(d),
            )
            .map_err(script_err)?;
        // `rally.param.*` checks each parameter where the script writes it.
        let check_param = lua
            .create_function(|lua, (spec, opts): (Table, Value)| {
                let kind: String = spec.get("kind")?;
                let what = format!("rally.param.{kind}");
                match opts {
                    Value::Nil => {}
                    Value::Table(opts) => {
                        for pair in views::open(lua, &opts)?.pairs::<Value, Value>() {
                            let (key, value) = pair?;
                            spec.raw_set(key, value)?;
                        }
                    }
                    other => {
                        return Err(located(
                            lua,
                            format!(
                                "{what}: expected a table of options {{ default = ..., describe = ... }}, got {}",
                                args::a(other.type_name())
                            ),
                        ))
                    }
                }
                decl::parse_param(lua, &spec, &what).map_err(|e| placed(lua, lua_message(&e)))?;
                Ok(spec)
            })
            .map_err(script_err)?;
        lua.load(include_str!("prelude.lua"))
            .set_name("@rally/prelude.lua")
            .call::<()>((
                rally.clone(),
                views::registry(&lua).map_err(script_err)?,
                check_param,
            ))
            .map_err(script_err)?;
        let rally_data = budget
            .unhooked(|| views::freeze(&lua, &rally, View::Library))
            .map_err(script_err)?;
        let members: Vec<String> = rally_data
            .pairs::<String, Value>()
            .map(|p| p.map(|(k, _)| k))
            .collect::<mlua::Result<_>>()
            .map_err(script_err)?;
        sandbox::strict(&lua, &rally_data, move |key| {
            check::unknown_member("rally", key, false, &members)
        })
        .map_err(script_err)?;
        sandbox::share(&lua, "rally", rally.clone()).map_err(script_err)?;
        // The host finds it in the globals, which no script sees.
        lua.globals().raw_set("rally", rally).map_err(script_err)?;

        // Each script, layer by layer, lowest first; then the variants' files. A layer whose
        // scripts are an unchanged copy of the built-in ones (rally's own repository, a
        // project that copied them) would replace every one with itself: it is read, for the
        // rules hash, but not run again.
        let per_layer: Vec<Vec<PathBuf>> = layers
            .iter()
            .map(|layer| -> Result<Vec<PathBuf>> {
                let Some(scripts) = &layer.scripts else {
                    return Ok(Vec::new());
                };
                let mut all = Vec::new();
                for sub in ["rules", "elements", "options"] {
                    all.extend(lua_files(&scripts.join(sub))?);
                }
                Ok(all)
            })
            .collect::<Result<_>>()?;
        let mut copies: Vec<Script> = Vec::new();
        let mut files: Vec<Script> = Vec::new();
        for (layer, paths) in per_layer.iter().enumerate() {
            let copy = layer > 0
                && layers[0].kind == layers::Kind::BuiltIn
                && layers::copies(&layers[layer], paths, &layers[0], &per_layer[0]);
            let scripts = paths.iter().map(|path| Script {
                path: path.clone(),
                layer,
                variant: None,
            });
            if copy {
                copies.extend(scripts);
            } else {
                files.extend(scripts);
            }
        }
        if files.is_empty() {
            return Err(Error::Other(format!(
                "no scripts in the layers {}: expected scripts/elements/*.lua",
                layers::describe(&layers)
            )));
        }
        for (i, (variant, _)) in variants.iter().enumerate() {
            files.extend(variant.files.iter().map(|path| Script {
                path: path.clone(),
                layer: variant.layer,
                variant: Some(i),
            }));
        }

        // Every file the rules are read from, each checked to be inside its layer's project.
        let named = |layer: usize, path: &Path| -> Result<RuleFile> {
            layers[layer].check_inside(path)?;
            Ok(RuleFile {
                path: path.to_path_buf(),
                name: layers[layer].file_name(path),
            })
        };
        let mut read: Vec<RuleFile> = Vec::new();
        for (i, layer) in layers.iter().enumerate() {
            if let Some(manifest) = &layer.manifest {
                read.push(named(i, manifest)?);
            }
        }
        for (variant, _) in &variants {
            read.push(named(variant.layer, &variant.dir.join("variant.toml"))?);
        }
        for script in files.iter().chain(&copies) {
            read.push(named(script.layer, &script.path)?);
        }
        let mut replaced: Vec<layers::Replaced> = offered
            .iter()
            .filter(|o| variants.iter().any(|(v, _)| v.dir == o.dir))
            .filter_map(|o| {
                let (over, old) = o.replaces.as_ref()?;
                Some(layers::Replaced {
                    kind: "variant",
                    name: o.name.clone(),
                    file: format!("{}/", display_path(&o.dir)),
                    layer: o.layer,
                    over: *over,
                    unchanged: layers::same_folder(&o.dir, old),
                })
            })
            .collect();

        let mut defs = Defs {
            order: Vec::new(),
            step_index: HashMap::new(),
            elements: Vec::new(),
            element_index: HashMap::new(),
            rules: Vec::new(),
            options: Vec::new(),
            variants,
            files: read,
            sources: sources.clone(),
            layers,
            replaced: Vec::new(),
            sentences: Default::default(),
        };
        budget.set_loading(true);
        for (n, script) in files.iter().enumerate() {
            let shown = display_path(&script.path);
            *current_file.borrow_mut() = shown.clone();
            lua.set_app_data(draw::ScriptPath(script.path.clone()));
            let params = script.variant.map(|i| {
                let (variant, params) = &defs.variants[i];
                (variant.name.as_str(), params)
            });
            let returned = run_file(&lua, &budget, &script.path, &shown, params)?;
            let mut found = std::mem::take(&mut *collected.borrow_mut());
            check_returned(&returned, &found.tables, &script.path, &shown)?;
            let kept = std::mem::take(&mut found.tables);
            budget
                .unhooked(|| views::keep(&lua, kept))
                .map_err(script_err)?;
            defs.merge(found, script, &files[..n])?;
        }
        replaced.append(&mut defs.replaced);
        defs.replaced = replaced;
        current_file.borrow_mut().clear();
        lua.remove_app_data::<draw::ScriptPath>();
        budget.set_loading(false);
        defs.place_steps(&steps.borrow());
        defs.check_only_with()?;
        defs.gather_sentences();
        Ok(RuleSet {
            lua,
            budget,
            defs: Rc::new(defs),
        })
    }

    /// Runs `f`, a call into the scripts outside a game's steps (`build`, a glyph function),
    /// under a fresh budget; the error says why it stopped.
    pub fn budgeted<R>(
        &self,
        f: impl FnOnce() -> mlua::Result<R>,
    ) -> std::result::Result<R, String> {
        let result = self.budget.call(f);
        match self.budget.spent() {
            Some(why) => Err(why),
            None => result.map_err(|e| lua_message(&e)),
        }
    }

    /// A tile as Lua sees it: its parameters plus `at`, `x`, `y` and `element`, read-only.
    pub fn tile_table(&self, tile: &Tile) -> mlua::Result<Table> {
        let data = self.lua.to_value(&tile.params)?;
        let data = match data {
            Value::Table(t) => t,
            _ => self.lua.create_table()?,
        };
        data.raw_set("at", pos_table(&self.lua, tile.at)?)?;
        data.raw_set("x", tile.at.x)?;
        data.raw_set("y", tile.at.y)?;
        data.raw_set("element", tile.name.as_str())?;
        let misses = self
            .lua
            .app_data_ref::<TileMisses>()
            .expect("made with the rule set")
            .of(&self.lua, self, tile.element)?;
        let fields = self
            .budget
            .unhooked(|| views::freeze(&self.lua, &data, View::Tile))?;
        fields.set_metatable(Some(misses))?;
        Ok(data)
    }
}

/// What `rally.element`, `rally.rule` and `rally.option` share: the file loading, the order of
/// play (declarations may add steps) and what has been declared.
struct Declarer {
    file: Rc<RefCell<String>>,
    steps: Rc<RefCell<crate::order::Steps>>,
    collected: Rc<RefCell<Collected>>,
}

/// A declaration as read, and whether it replaces one of the same name.
type Parsed<T> = (T, Replace);

impl Declarer {
    /// Sets `rally.KIND`, the function that checks a declaration (`parse`), then keeps it
    /// (`keep`) and returns it, so that a script can `return rally.element { ... }`.
    fn install<T: Named + 'static>(
        &self,
        lua: &Lua,
        rally: &Table,
        kind: &'static str,
        declared: Declared,
        parse: fn(&Lua, &Table, &str, &mut crate::order::Steps) -> mlua::Result<Parsed<T>>,
        keep: fn(&mut Collected, Parsed<T>),
    ) -> mlua::Result<()> {
        let (file, steps, collected) = (
            self.file.clone(),
            self.steps.clone(),
            self.collected.clone(),
        );
        let function = lua.create_function(move |lua, decl: Table| {
            loading(lua, &file.borrow(), kind)?;
            let parsed = parse(lua, &decl, &file.borrow(), &mut steps.borrow_mut())
                .map_err(|e| placed(lua, lua_message(&e)))?;
            declared.add(parsed.0.name(), &decl)?;
            let mut collected = collected.borrow_mut();
            keep(&mut collected, parsed);
            collected.tables.push(Value::Table(decl.clone()));
            Ok(decl)
        })?;
        rally.raw_set(kind, function)
    }
}

/// A declaration's name, file and layer (set when it is placed: `Placing::put`).
trait Named {
    fn name(&self) -> &str;
    fn file(&self) -> &str;
    fn layer(&self) -> usize;
    fn set_layer(&mut self, layer: usize);
}

macro_rules! named {
    ($($t:ty),*) => {$(
        impl Named for $t {
            fn name(&self) -> &str {
                &self.name
            }
            fn file(&self) -> &str {
                &self.file
            }
            fn layer(&self) -> usize {
                self.layer
            }
            fn set_layer(&mut self, layer: usize) {
                self.layer = layer;
            }
        }
    )*};
}

named!(ElementDef, RuleDef, OptionDef);

/// The declarations of one kind loaded so far (`rally.elements`, ...), and the cache of those
/// scripts have read (and so made read-only).
struct Declared {
    declared: Table,
    cache: Table,
}

impl Declared {
    fn add(&self, name: &str, decl: &Table) -> mlua::Result<()> {
        self.declared.raw_set(name, decl)?;
        // Declared again (`replace = true`): the next read sees the new one.
        self.cache.raw_set(name, Value::Nil)
    }
}

/// `rally.element` and its kin declare while the scripts load, not later from a handler.
fn loading(lua: &Lua, file: &str, what: &str) -> mlua::Result<()> {
    if file.is_empty() {
        return Err(located(
            lua,
            format!("rally.{what} declares while the scripts load, not from a handler"),
        ));
    }
    Ok(())
}

/// A script returns its declaration (`return rally.element { ... }`) or nothing, and
/// declares something: otherwise the element it meant to add would be missing, reported far
/// away as an unknown element. Lua does not say where a chunk returned: the error points at
/// the file's last `return` line.
fn check_returned(returned: &Value, declared: &[Value], path: &Path, shown: &str) -> Result<()> {
    let problem = match returned {
        Value::Nil if declared.is_empty() => "declares nothing".to_string(),
        Value::Nil => return Ok(()),
        Value::Table(_) if declared.contains(returned) => return Ok(()),
        Value::Table(_) => "returns a table that is not a declaration".to_string(),
        other => format!(
            "returns {}, {}",
            crate::text::clean(&other.to_string().unwrap_or_default()),
            args::a(other.type_name())
        ),
    };
    let message = format!(
        "{problem}: a script declares what it adds, `return rally.element {{ ... }}` (or rally.rule, rally.option)"
    );
    let text = crate::files::read_text(path).unwrap_or_default();
    let line = text
        .lines()
        .enumerate()
        .filter(|(_, l)| l.trim_start().starts_with("return"))
        .last()
        .map(|(i, _)| i + 1);
    Err(Error::Script(match line {
        Some(line) => format!("{shown}:{line}: {message}"),
        None => format!("{shown}: {message}"),
    }))
}

/// Runs one script file in its own environment, under a fresh budget, after checking that
/// none of its functions assigns a local of the file (`upvalues.rs`); returns what it returned.
fn run_file(
    lua: &Lua,
    budget: &Budget,
    path: &Path,
    shown: &str,
    params: Option<(&str, &Map<String, Json>)>,
) -> Result<Value> {
    let text = crate::files::read_text(path)?;
    let err = |e: mlua::Error| Error::Script(lua_message(&e));
    let extra = match params {
        Some((variant, params)) => {
            let table = lua.to_value(params).map_err(err)?;
            if let Value::Table(t) = &table {
                let data = budget
                    .unhooked(|| views::freeze(lua, t, View::Params))
                    .map_err(err)?;
                // Every parameter has a value (variant parameters have defaults): a name
                // that is not one is a typo, as strict as a tile's fields.
                let known: Vec<String> = params.keys().cloned().collect();
                let variant = variant.to_string();
                sandbox::strict(lua, &data, move |key| {
                    format!(
                        "variant `{variant}` has no parameter `{key}`{}; {}",
                        crate::error::suggest(key, known.iter().map(String::as_str)),
                        if known.is_empty() {
                            "it has none".to_string()
                        } else {
                            format!("it has {}", known.join(", "))
                        }
                    )
                })
                .map_err(err)?;
            }
            let extra = lua.create_table().map_err(err)?;
            extra.raw_set("params", table).map_err(err)?;
            Some(extra)
        }
        None => None,
    };
    let env = budget
        .unhooked(|| sandbox::script_env(lua, extra))
        .map_err(err)?;
    let chunk = lua
        .load(text.as_str())
        .set_name(format!("@{shown}"))
        .set_mode(mlua::chunk::ChunkMode::Text)
        .set_environment(env)
        .into_function()
        .map_err(err)?;
    upvalues::check(&chunk, shown).map_err(Error::Script)?;
    lua.set_app_data(decl::KeyProblems::default());
    let result = budget.call(|| chunk.call::<Value>(()));
    let keys = lua
        .remove_app_data::<decl::KeyProblems>()
        .unwrap_or_default()
        .0;
    if let Some(why) = budget.spent() {
        return Err(Error::Script(why));
    }
    let result = result.map_err(|e| match e {
        // Lua's own out-of-memory error says nowhere: name the file at least.
        mlua::Error::MemoryError(_) => Error::Script(format!("{shown}: {}", lua_message(&e))),
        e => err(e),
    });
    if keys.is_empty() {
        return result;
    }
    // Every unknown key of the file, with what stopped it if anything did, by line.
    let mut all = keys;
    if let Err(e) = result {
        all.extend(check::split(&e.to_string()));
    }
    all.sort_by_key(|m| line_of(m, shown));
    all.dedup();
    Err(Error::Script(all.join("\n")))
}

/// The line a message `file:line:...` of the script `shown` points at (last without one).
fn line_of(message: &str, shown: &str) -> usize {
    message
        .strip_prefix(shown)
        .and_then(|m| m.strip_prefix(':'))
        .and_then(|m| m.split(':').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or(usize::MAX)
}

impl Defs {
    /// The final order of play, once every declaration has added its steps: handlers are
    /// keyed by their step's place in it.
    fn place_steps(&mut self, steps: &crate::order::Steps) {
        let (order, place) = steps.finish();
        for e in &mut self.elements {
            e.steps.place(&place);
            e.tile_steps.place(&place);
        }
        for r in &mut self.rules {
            r.steps.place(&place);
        }
        for o in &mut self.options {
            o.steps.place(&place);
        }
        self.step_index = order
            .iter()
            .enumerate()
            .map(|(i, s)| (s.name.clone(), i))
            .collect();
        self.order = order;
    }

    /// Adds what `script` declared: a new name adds, a name loaded before is replaced as
    /// [`Placing::place`] decides.
    fn merge(&mut self, found: Collected, script: &Script, earlier: &[Script]) -> Result<()> {
        let at = Placing {
            script,
            shown: display_path(&script.path),
            earlier,
            layers: &self.layers,
        };
        for (def, replace) in found.elements {
            let existing = self.element_id(&def.name);
            let name = def.name.clone();
            let list = &mut self.elements;
            let i = at.put("element", list, existing, def, replace, &mut self.replaced)?;
            self.element_index.insert(name, i);
        }
        for (def, replace) in found.rules {
            let existing = self.rules.iter().position(|r| r.name == def.name);
            let list = &mut self.rules;
            at.put("rule", list, existing, def, replace, &mut self.replaced)?;
        }
        for (def, replace) in found.options {
            let existing = self.options.iter().position(|o| o.name == def.name);
            let list = &mut self.options;
            at.put("option", list, existing, def, replace, &mut self.replaced)?;
        }
        Ok(())
    }

    /// The notices of what the layers replace: `project: scripts/elements/gear.lua replaces
    /// element `gear` (built-in)`; unchanged copies change nothing and are not noted.
    pub fn notices(&self) -> Vec<String> {
        self.replaced
            .iter()
            .filter(|r| !r.unchanged)
            .map(|r| r.notice(&self.layers))
            .collect()
    }

    /// What the declaration of `kind` and `name` replaced, if it replaced a lower layer's.
    pub fn replacement(&self, kind: &str, name: &str) -> Option<&layers::Replaced> {
        self.replaced
            .iter()
            .rev()
            .find(|r| r.kind == kind && r.name == name)
    }

    /// Where the rules come from, for messages: `the layers built-in, project (scripts); no
    /// variant switched on`.
    pub fn describe_sources(&self) -> String {
        let layers = layers::describe(&self.layers);
        let variants: Vec<String> = self
            .variants
            .iter()
            .map(|(v, _)| format!("{} ({})", v.name, self.layers[v.layer]))
            .collect();
        match variants.len() {
            0 => format!("the layers {layers}; no variant switched on"),
            1 => format!("the layers {layers}; the variant {}", variants[0]),
            _ => format!("the layers {layers}; the variants {}", variants.join(", ")),
        }
    }

    /// The robot vars a script declared public (`public_vars`): every page of a table may
    /// see them; a robot's other vars are its seat's alone.
    pub fn public_vars(&self) -> std::collections::BTreeSet<String> {
        let elements = self.elements.iter().flat_map(|d| &d.public_vars);
        let rules = self.rules.iter().flat_map(|d| &d.public_vars);
        let options = self.options.iter().flat_map(|d| &d.public_vars);
        elements.chain(rules).chain(options).cloned().collect()
    }

    pub fn option_def(&self, name: &str) -> Option<&OptionDef> {
        self.options.iter().find(|o| o.name == name)
    }

    /// Every option as `(name, uses)`, sorted by name: what a fresh option deck holds.
    pub fn option_catalogue(&self) -> Vec<(String, Option<u32>)> {
        let mut all: Vec<(String, Option<u32>)> = self
            .options
            .iter()
            .map(|o| (o.name.clone(), o.uses))
            .collect();
        all.sort();
        all
    }

    pub fn step_id(&self, name: &str) -> Option<usize> {
        self.step_index.get(name).copied()
    }

    pub fn element_id(&self, name: &str) -> Option<usize> {
        self.element_index.get(name).copied()
    }

    /// Every element a rule's `only_with` names must exist once everything is loaded.
    /// Gathers every declaration's event sentences, lowest layer first, so that a higher
    /// layer's sentence for an event replaces a lower one's.
    fn gather_sentences(&mut self) {
        let mut declared: Vec<(usize, &crate::text::sentence::Sentences)> = Vec::new();
        declared.extend(self.elements.iter().map(|d| (d.layer, &d.events)));
        declared.extend(self.rules.iter().map(|d| (d.layer, &d.events)));
        declared.extend(self.options.iter().map(|d| (d.layer, &d.events)));
        declared.sort_by_key(|(layer, _)| *layer);
        let mut all = crate::text::sentence::Sentences::default();
        for (_, events) in declared {
            all.extend(events);
        }
        self.sentences = all;
    }

    fn check_only_with(&self) -> Result<()> {
        for rule in &self.rules {
            if let Some(missing) = rule.only_with.iter().find(|e| self.element_id(e).is_none()) {
                return Err(Error::Script(format!(
                    "{}: rule `{}`: `only_with` names `{missing}`, which no script defines{}",
                    rule.file,
                    rule.name,
                    crate::error::suggest(missing, self.elements.iter().map(|e| e.name.as_str()))
                )));
            }
        }
        Ok(())
    }

    /// The variants that define element `name` and are not switched on: those in the
    /// variants folder in use, then those built into rally. For "unknown element" errors, so
    /// they can say which variant to switch on.
    pub fn variants_defining(&self, name: &str) -> Vec<String> {
        let on: Vec<&str> = self.variants.iter().map(|(v, _)| v.name.as_str()).collect();
        let offered = layers::offered_variants(&self.layers).unwrap_or_default();
        let mut found = Vec::new();
        for variant in offered.iter().filter(|o| !on.contains(&o.name.as_str())) {
            let alone = Sources {
                project: self.sources.project.clone(),
                choices: vec![Choice {
                    name: variant.name.clone(),
                    ..Choice::default()
                }],
            };
            let Ok(rules) = RuleSet::load(&alone) else {
                continue;
            };
            let Some((loaded, _)) = rules.variants.iter().find(|(v, _)| v.dir == variant.dir)
            else {
                continue;
            };
            let ours: Vec<String> = loaded.files.iter().map(|f| display_path(f)).collect();
            let declares = |def: &ElementDef| ours.contains(&def.file) && !def.replaces;
            if rules
                .element_id(name)
                .is_some_and(|i| declares(&rules.elements[i]))
            {
                found.push(variant.name.clone());
            }
        }
        found
    }
}

/// A script to load: its file, its layer and, for a variant's file, which variant (its
/// index in the rule set's variants).
struct Script {
    path: PathBuf,
    layer: usize,
    variant: Option<usize>,
}

/// Where a declaration is being placed: the script that made it, the scripts loaded before.
struct Placing<'a> {
    script: &'a Script,
    shown: String,
    earlier: &'a [Script],
    layers: &'a [Layer],
}

impl Placing<'_> {
    /// Puts `def`, of this script's layer, into `list`: over `existing`, the declaration of
    /// its name loaded earlier, when it replaces that one ([`Placing::place`]), else at the
    /// end. Returns where it went.
    fn put<T: Named>(
        &self,
        kind: &'static str,
        list: &mut Vec<T>,
        existing: Option<usize>,
        mut def: T,
        replace: Replace,
        replaced: &mut Vec<layers::Replaced>,
    ) -> Result<usize> {
        def.set_layer(self.script.layer);
        let before = existing.map(|i| &list[i] as &dyn Named);
        match (self.place(kind, &def, before, replace, replaced)?, existing) {
            (true, Some(i)) => {
                list[i] = def;
                Ok(i)
            }
            _ => {
                list.push(def);
                Ok(list.len() - 1)
            }
        }
    }

    /// Whether the declaration `def` replaces `before`, the one of its name loaded earlier
    /// (true), or adds a name (false). Within one layer, and in a variant, replacing is
    /// said with `replace = true`; a name defined again by a layer that builds on the one
    /// that defined it replaces it, noted in `replaced` unless the file is an unchanged copy;
    /// two packs defining one name is an error naming both files.
    fn place(
        &self,
        kind: &'static str,
        def: &dyn Named,
        before: Option<&dyn Named>,
        replace: Replace,
        replaced: &mut Vec<layers::Replaced>,
    ) -> Result<bool> {
        let name = def.name();
        let Some(before) = before else {
            if replace == Replace::Yes {
                return Err(Error::Script(format!(
                    "{}: {kind} `{name}` says `replace = true` but no {kind} of that name is loaded",
                    self.shown
                )));
            }
            return Ok(false);
        };
        let (layer, over) = (
            &self.layers[self.script.layer],
            &self.layers[before.layer()],
        );
        if self.script.variant.is_some() || before.layer() == self.script.layer {
            return match replace {
                Replace::Yes => Ok(true),
                Replace::No => Err(Error::Script(format!(
                    "{kind} `{name}` is defined twice, in {} and in {}: rename one; to replace \
                     the first, say `replace = true` in the second (files load in name order, \
                     variants after the scripts)",
                    before.file(),
                    self.shown
                ))),
            };
        }
        if !layer.builds_on(over) {
            return Err(Error::Script(format!(
                "{kind} `{name}` is defined by two packs, {over} ({}) and {layer} ({}): two packs \
                 may not define the same name; rename one (the project may replace either)",
                before.file(),
                self.shown
            )));
        }
        let unchanged = self
            .earlier
            .iter()
            .find(|e| e.layer == before.layer() && display_path(&e.path) == before.file())
            .is_some_and(|e| layers::same_file(&e.path, &self.script.path));
        replaced.push(layers::Replaced {
            kind,
            name: name.to_string(),
            file: self.shown.clone(),
            layer: self.script.layer,
            over: before.layer(),
            unchanged,
        });
        Ok(true)
    }
}

/// `tiles.lua`: makes the metatable behind a tile's data (`RuleSet::tile_table`), once per
/// element, since it depends only on the element's declared parameters (making it for every
/// tile was most of the cost of building a board's tile tables).
struct TileMisses {
    make: mlua::Function,
    by_element: RefCell<HashMap<usize, Table>>,
}

impl TileMisses {
    fn install(lua: &Lua) -> mlua::Result<()> {
        let make = lua
            .load(include_str!("tiles.lua"))
            .set_name("@rally/tiles.lua")
            .eval()?;
        lua.set_app_data(TileMisses {
            make,
            by_element: RefCell::default(),
        });
        Ok(())
    }

    /// The metatable of the tiles of element `id`.
    fn of(&self, lua: &Lua, defs: &Defs, id: usize) -> mlua::Result<Table> {
        if let Some(made) = self.by_element.borrow().get(&id) {
            return Ok(made.clone());
        }
        // Reading a parameter the element does not declare is a typo: say so, instead of
        // quietly giving nil. (Declared optional parameters that are absent read as nil.)
        let def = &defs.elements[id];
        let declared: Vec<String> = def.params.keys().cloned().collect();
        let element = def.name.clone();
        let set = lua.create_table_from(declared.iter().map(|k| (k.as_str(), true)))?;
        let fail = lua.create_function(move |lua, key: Value| -> mlua::Result<()> {
            let key = key.to_string()?;
            let mut known: Vec<&str> = declared.iter().map(String::as_str).collect();
            known.extend(["at", "x", "y", "element"]);
            Err(located(
                lua,
                format!(
                    "a `{element}` tile has no field `{key}`{}; it has {}",
                    crate::error::suggest(&key, known.iter().copied()),
                    known.join(", ")
                ),
            ))
        })?;
        let made: Table = self.make.call((set, fail))?;
        self.by_element.borrow_mut().insert(id, made.clone());
        Ok(made)
    }
}

/// Lua strings made once per rule set for the keys of squares, which scripts read and write
/// on every hot path (making a Lua string from a Rust `&str` costs a hash and an allocation).
pub struct Keys {
    pub x: mlua::LuaString,
    pub y: mlua::LuaString,
}

impl Keys {
    fn install(lua: &Lua) -> mlua::Result<()> {
        let keys = Keys {
            x: lua.create_string("x")?,
            y: lua.create_string("y")?,
        };
        lua.set_app_data(keys);
        Ok(())
    }
}

/// A square as scripts see it: `{ x = .., y = .. }`.
pub fn pos_table(lua: &Lua, p: Pos) -> mlua::Result<Table> {
    let keys = lua
        .app_data_ref::<Keys>()
        .expect("keys are installed with the rule set");
    lua.create_table_from([(keys.x.clone(), p.x), (keys.y.clone(), p.y)])
}

/// The builder `build(b, tile)` declarations write static facts through.
struct FactsBuilder<'a> {
    facts: &'a mut Facts,
    /// The tile being built: its index and square.
    tile: usize,
    at: Pos,
}

fn dir_arg(lua: &Lua, text: &str) -> mlua::Result<Dir> {
    Dir::parse(text).ok_or_else(|| args::invalid(lua, "rally.Dir", &format!("\"{text}\"")))
}

impl Catalogue for RuleSet {
    fn element(&self, name: &str) -> std::result::Result<(usize, &ParamSpecs), String> {
        match self.element_id(name) {
            Some(i) => Ok((i, &self.elements[i].params)),
            None => Err(format!(
                "unknown element `{name}`{}; searched {}",
                match self.variants_defining(name).as_slice() {
                    [] => crate::error::suggest(name, self.elements.iter().map(|e| e.name.as_str())),
                    [one] => format!(
                        ": `{name}` is defined by the variant `{one}`: add `variants = [\"{one}\"]` (or `--variant {one}`)"
                    ),
                    several => format!(
                        ": `{name}` is defined by the variants {}: switch one on, e.g. `variants = [\"{}\"]`",
                        several.iter().map(|v| format!("`{v}`")).collect::<Vec<_>>().join(", "),
                        several[0]
                    ),
                },
                self.describe_sources()
            )),
        }
    }

    fn build(&self, index: usize, tile: &Tile, facts: &mut Facts) -> Result<()> {
        let def = &self.elements[tile.element];
        // `blocks = { lasers = true }`: beams stop at every edge of its square, both ways.
        if def.blocks.is_some_and(|b| b.lasers) {
            let lasers = Blocking {
                robots_out: false,
                robots_in: false,
                lasers_out: true,
                lasers_in: true,
            };
            for side in Dir::ALL {
                facts.add_wall(tile.at, side, lasers);
            }
        }
        let Some(build) = &def.build else {
            return Ok(());
        };
        let builder = RefCell::new(FactsBuilder {
            facts,
            tile: index,
            at: tile.at,
        });
        let table = self
            .tile_table(tile)
            .map_err(|e| Error::Script(lua_message(&e)))?;
        let result = self.budgeted(|| {
            self.lua.scope(|scope| {
                let b = scope.create_any_userdata(
                    &builder,
                    |reg: &mut mlua::UserDataRegistry<&RefCell<FactsBuilder>>| {
                        reg.add_method(
                            "wall",
                            |lua, this, (side, opts): (String, Option<Table>)| {
                                let side = dir_arg(lua, &side)?;
                                let opt = |k: &str| -> mlua::Result<Option<Value>> {
                                    opts.as_ref()
                                        .map_or(Ok(None), |t| t.get::<Option<Value>>(k))
                                };
                                // `pass = "out"`: robots and lasers may leave through this side, not enter.
                                let pass = match opt("pass")? {
                                    None | Some(Value::Nil) => None,
                                    Some(v) => Some(v.to_string()?),
                                };
                                let lasers = !matches!(opt("lasers")?, Some(Value::Boolean(false)));
                                let (out, inn) = match pass.as_deref() {
                                    None => (true, true),
                                    Some("out") => (false, true),
                                    Some("in") => (true, false),
                                    Some(other) => {
                                        return Err(located(
                                            lua,
                                            format!("pass = `{other}`: expected \"out\" or \"in\""),
                                        ))
                                    }
                                };
                                let blocking = Blocking {
                                    robots_out: out,
                                    robots_in: inn,
                                    lasers_out: out && lasers,
                                    lasers_in: inn && lasers,
                                };
                                let mut b = this.borrow_mut();
                                let at = b.at;
                                b.facts.add_wall(at, side, blocking);
                                Ok(())
                            },
                        );
                        reg.add_method("hazard", |_, this, ()| {
                            let mut b = this.borrow_mut();
                            let at = b.at;
                            b.facts.set_hazard(at);
                            Ok(())
                        });
                        reg.add_method("solid", |_, this, ()| {
                            let mut b = this.borrow_mut();
                            let at = b.at;
                            b.facts.set_solid(at);
                            Ok(())
                        });
                        reg.add_method("ignore", |lua, this, key: String| {
                            let hooks = || Hook::heard_by(Listener::Square).map(|s| s.key);
                            let Some(spec) = Hook::heard_by(Listener::Square).find(|s| s.key == key)
                            else {
                                return Err(located(
                                    lua,
                                    format!(
                                        "b:ignore: `{key}` is not a hook an element hears{}; they are {}",
                                        crate::error::suggest(&key, hooks()),
                                        hooks().collect::<Vec<_>>().join(", ")
                                    ),
                                ));
                            };
                            let mut b = this.borrow_mut();
                            let tile = b.tile;
                            b.facts.ignore(tile, spec.hook);
                            Ok(())
                        });
                        reg.add_method("flag", |_, this, number: u32| {
                            let mut b = this.borrow_mut();
                            let at = b.at;
                            b.facts.flags.push((number, at));
                            Ok(())
                        });
                        reg.add_method(
                            "start",
                            |lua, this, (number, facing): (u32, Option<String>)| {
                                let facing = facing.map(|f| dir_arg(lua, &f)).transpose()?;
                                let mut b = this.borrow_mut();
                                let at = b.at;
                                b.facts.starts.push(Start { number, at, facing });
                                Ok(())
                            },
                        );
                    },
                )?;
                build.call::<()>((b, table))
            })
        });
        result.map_err(|e| {
            Error::Script(format!(
                "element `{}` at {}, build: {e}",
                tile.name, tile.at
            ))
        })
    }
}
