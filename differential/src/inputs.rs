//! Native run inputs from the interpreter's: the initial state a
//! [`Machine`] sets up from a [`pllvm_interp::RunConfig`] (Def. 4: every
//! global's bytes, every lane's arguments) becomes one
//! [`RunInput`] of the runner protocol. Pointers into globals become
//! `g<global>+<offset>` tokens, so the native program sees its own copy of each
//! global at the same offset; a pointer one past a global's end lands in the
//! guard page after it.

use pllvm_codegen::native::protocol::{ArgToken, GlobalImage, RunInput};
use pllvm_interp::Machine;
use pllvm_semantics::entity::EntityRef;
use pllvm_semantics::ir::GlobalId;
use pllvm_semantics::memory::Byte;
use pllvm_semantics::value::{ObjectId, Pointer, Val};

/// The global whose object is `object` in `machine`'s memory.
pub fn global_of(machine: &Machine<'_>, object: ObjectId) -> Option<GlobalId> {
    machine
        .program
        .module
        .globals
        .keys()
        .find(|&g| machine.global_pointer(g).and_then(|p| p.object) == Some(object))
}

/// The token of one argument value.
fn token(machine: &Machine<'_>, v: &Val, what: &dyn Fn() -> String) -> Result<ArgToken, String> {
    Ok(match v {
        // ⊤: any bits will do.
        Val::Undef => ArgToken::Bits(0),
        Val::Int(bits) => {
            ArgToken::Bits(u64::try_from(*bits).map_err(|_| {
                format!("{}: a value wider than 64 bits has no native word", what())
            })?)
        }
        Val::F32(bits) => ArgToken::Bits(u64::from(*bits)),
        Val::F64(bits) => ArgToken::Bits(*bits),
        Val::Ptr(Pointer {
            object: None,
            offset: 0,
        }) => ArgToken::Null,
        Val::Ptr(Pointer {
            object: None,
            offset,
        }) => ArgToken::Bits(*offset),
        Val::Ptr(Pointer {
            object: Some(o),
            offset,
        }) => {
            let g = global_of(machine, *o).ok_or_else(|| {
                format!("{}: a pointer into an object that is not a global", what())
            })?;
            ArgToken::Global(g.index(), *offset)
        }
        other => {
            return Err(format!("{}: the value {other} has no native word", what()));
        }
    })
}

/// The runner input of `machine`'s initial state, for kernel `kernel` of the
/// batch. `machine` must not have stepped yet (its memory and Δ^W are Def. 4's).
pub fn run_input(kernel: usize, machine: &Machine<'_>) -> Result<RunInput, String> {
    let module = machine.program.module;
    let types = &module.types;
    let mut globals = Vec::new();
    for (g, data) in module.globals.iter() {
        let size = types.size_of(data.ty);
        let align = data.align.unwrap_or_else(|| types.align_of(data.ty)).max(1);
        let ptr = machine
            .global_pointer(g)
            .ok_or_else(|| format!("global @{} has no object", data.name))?;
        let bytes = machine
            .state
            .mem
            .read_bytes(ptr, size)
            .map_err(|e| format!("global @{}: {e}", data.name))?;
        let mut image = Vec::with_capacity(bytes.len());
        for (k, b) in bytes.iter().enumerate() {
            image.push(match b {
                // Bytes nobody wrote are ⊤: zero natively (what `freeze` picks).
                Byte::Uninit => 0,
                Byte::Data(d) => *d,
                Byte::PtrFrag {
                    ptr: Pointer { object: None, offset },
                    index,
                } => (offset >> (8 * u64::from(*index))) as u8,
                Byte::PtrFrag { .. } => {
                    return Err(format!(
                        "global @{} holds a pointer to an object at byte {k}: the runner protocol places no pointers inside globals",
                        data.name
                    ));
                }
            });
        }
        let all_zero = image.iter().all(|&b| b == 0);
        globals.push(GlobalImage {
            size,
            align,
            bytes: (!all_zero).then_some(image),
        });
    }
    let fdata = &module.functions[machine.program.func];
    let width = machine.state.env.width();
    let mut args = Vec::new();
    for (k, param) in fdata.params.iter().enumerate() {
        let name = machine
            .program
            .body
            .value_name(param.value)
            .map_or(k.to_string(), str::to_string);
        let mut column = Vec::with_capacity(width);
        for lane in 0..width {
            let v = machine.state.env.lane(param.value, lane);
            let what = || format!("argument %{name} of lane {lane}");
            column.push(token(machine, &v, &what)?);
        }
        args.push(column);
    }
    Ok(RunInput {
        kernel,
        n: width as u64,
        globals,
        args,
    })
}
