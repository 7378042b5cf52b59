"""Const inference: which pointer arguments a kernel writes through (TTIR def-use walk)."""
import textwrap

import pytest

from tritonpack_compile.constness import stored_args


def fn(body: str, args: str = "%a: !tt.ptr<f32>, %b: !tt.ptr<f32>, %n: i32") -> str:
    return ("module {\n  tt.func public @k(" + args + ") attributes {noinline = false} {\n"
            + textwrap.indent(textwrap.dedent(body).strip("\n"), "    ") + "\n    tt.return\n  }\n}\n")


def test_plain_load_store():
    ttir = fn("""
        %0 = tt.load %a : !tt.ptr<f32>
        %1 = tt.addptr %b, %n : !tt.ptr<f32>, i32
        tt.store %1, %0 : !tt.ptr<f32>
    """)
    assert stored_args(ttir)[:2] == [False, True]  # only pointers matter


def test_loaded_value_as_offset_does_not_taint_the_index_array():
    ttir = fn("""
        %0 = tt.load %a : !tt.ptr<f32>
        %i = arith.fptosi %0 : f32 to i32
        %1 = tt.addptr %b, %i : !tt.ptr<f32>, i32
        tt.store %1, %0 : !tt.ptr<f32>
    """)
    assert stored_args(ttir)[:2] == [False, True]  # only pointers matter


def test_loading_pointers_propagates():
    # a is a pointer to pointers: what is loaded from it is derived from memory it points to;
    # conservatively, storing through a loaded pointer counts as writing through a.
    ttir = fn("""
        %p = tt.load %a : !tt.ptr<!tt.ptr<f32>>
        tt.store %p, %x : !tt.ptr<f32>
    """, args="%a: !tt.ptr<!tt.ptr<f32>>, %x: f32")
    assert stored_args(ttir)[0] is True


def test_multi_result_names_with_hash():
    # %r:2 defines %r#0 and %r#1; a store through %r#1 must be seen.
    ttir = fn("""
        %c = arith.cmpi sgt, %n, %n : i32
        %r:2 = scf.if %c -> (!tt.ptr<f32>, !tt.ptr<f32>) {
          scf.yield %a, %b : !tt.ptr<f32>, !tt.ptr<f32>
        } else {
          scf.yield %a, %b : !tt.ptr<f32>, !tt.ptr<f32>
        }
        %v = tt.load %r#0 : !tt.ptr<f32>
        tt.store %r#1, %v : !tt.ptr<f32>
    """)
    # scf.if results are merged (conservative): both pointers count as written
    assert stored_args(ttir)[:2] == [True, True]


def test_for_iter_args_are_positional():
    ttir = fn("""
        %c0 = arith.constant 0 : i32
        %c1 = arith.constant 1 : i32
        %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%p = %a, %q = %b) -> (!tt.ptr<f32>, !tt.ptr<f32>)  : i32 {
          %v = tt.load %p : !tt.ptr<f32>
          tt.store %q, %v : !tt.ptr<f32>
          %p2 = tt.addptr %p, %c1 : !tt.ptr<f32>, i32
          %q2 = tt.addptr %q, %c1 : !tt.ptr<f32>, i32
          scf.yield %p2, %q2 : !tt.ptr<f32>, !tt.ptr<f32>
        }
    """)
    assert stored_args(ttir)[:2] == [False, True]  # only pointers matter


def test_for_result_used_after_the_loop():
    ttir = fn("""
        %c0 = arith.constant 0 : i32
        %c1 = arith.constant 1 : i32
        %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%p = %a, %q = %b) -> (!tt.ptr<f32>, !tt.ptr<f32>)  : i32 {
          %q2 = tt.addptr %p, %c1 : !tt.ptr<f32>, i32
          scf.yield %p, %q2 : !tt.ptr<f32>, !tt.ptr<f32>
        }
        tt.store %r#1, %x : !tt.ptr<f32>
    """, args="%a: !tt.ptr<f32>, %b: !tt.ptr<f32>, %n: i32, %x: f32")
    # %r#1 comes from %q2, derived from %p, i.e. from a (and from b, its initial value)
    assert stored_args(ttir)[:2] == [True, True]


def test_while_is_conservative():
    ttir = fn("""
        %r = scf.while (%p = %a) : (!tt.ptr<f32>) -> !tt.ptr<f32> {
          %c = arith.cmpi sgt, %n, %n : i32
          scf.condition(%c) %p : !tt.ptr<f32>
        } do {
        ^bb0(%p2: !tt.ptr<f32>):
          scf.yield %p2 : !tt.ptr<f32>
        }
        tt.store %r, %x : !tt.ptr<f32>
    """, args="%a: !tt.ptr<f32>, %b: !tt.ptr<f32>, %n: i32, %x: f32")
    assert stored_args(ttir)[:2] == [True, False]


@pytest.mark.parametrize("op", [
    "tt.atomic_rmw fadd, acq_rel, gpu, %a, %x : (!tt.ptr<f32>, f32) -> f32",
    "tt.atomic_cas acq_rel, gpu, %a, %x, %x : (!tt.ptr<f32>, f32, f32) -> f32",
    'tt.descriptor_store %a[%n], %x : !tt.tensordesc<tensor<16xf32>>, tensor<16xf32>',
    "tt.call @helper(%a) : (!tt.ptr<f32>) -> ()",
    "tt.some_future_op %a : !tt.ptr<f32>",      # unknown ops count as writes
    'tt.elementwise_inline_asm "st.global.f32 [$1], $2;" {pure = false} %a, %x : !tt.ptr<f32>, f32 -> i32',
])
def test_sinks(op):
    ttir = fn("%r = " + op if "atomic" in op or "inline_asm" in op else op,
              args="%a: !tt.ptr<f32>, %b: !tt.ptr<f32>, %n: i32, %x: f32")
    assert stored_args(ttir)[0] is True
    assert stored_args(ttir)[1] is False


def test_loc_and_strings_do_not_confuse_the_parser():
    ttir = ('module {\n  tt.func public @k(%a: !tt.ptr<f32> {tt.divisibility = 16 : i32} loc("a"(#loc)), '
            '%b: !tt.ptr<f32> loc("b(%a)"(#loc))) attributes {noinline = false} {\n'
            '    %0 = tt.load %a : !tt.ptr<f32> loc("x = %b"(#loc1))\n'
            '    tt.store %b, %0 : !tt.ptr<f32> loc(#loc2)\n    tt.return loc(#loc3)\n  } loc(#loc)\n} loc(#loc)\n')
    assert stored_args(ttir) == [False, True]


def test_kernel_not_found():
    assert stored_args("module {\n}\n") is None
    assert stored_args(fn(""), kernel="other") is None


def test_private_functions_are_not_the_kernel():
    ttir = ("module {\n  tt.func private @helper(%p: !tt.ptr<f32>) attributes {noinline = true} {\n"
            "    tt.store %p, %p : !tt.ptr<f32>\n    tt.return\n  }\n"
            "  tt.func public @k(%a: !tt.ptr<f32>) attributes {noinline = false} {\n"
            "    %0 = tt.load %a : !tt.ptr<f32>\n    tt.return\n  }\n}\n")
    assert stored_args(ttir, "k") == [False]


@pytest.mark.slow
@pytest.mark.parametrize("name,sig,cx,expect", [
    ("scatter", {"src": "*fp32", "idx": "*i32", "dst": "*fp32", "n": "i32", "BLOCK": "constexpr"},
     {"BLOCK": 128}, {"src": False, "idx": False, "dst": True}),
    ("histogram_atomic", {"x": "*i32", "bins": "*i32", "n": "i32", "BLOCK": "constexpr"},
     {"BLOCK": 128}, {"x": False, "bins": True}),
    ("loop_carried", {"a": "*fp32", "b": "*fp32", "n": "i32", "BLOCK": "constexpr"},
     {"BLOCK": 128}, {"a": False, "b": True}),
    ("select_ptr", {"a": "*fp32", "b": "*fp32", "c": "*fp32", "flag": "i32"}, {},
     {"a": False, "b": True, "c": True}),
    ("via_call", {"a": "*fp32", "b": "*fp32"}, {}, {"a": False, "b": True}),
    ("reduce_rows", {"x": "*fp32", "out": "*fp32", "n_cols": "i32", "BLOCK": "constexpr"},
     {"BLOCK": 128}, {"x": False, "out": True}),
])
@pytest.mark.parametrize("target", [("cuda", 80, 32), ("hip", "gfx942", 64)])
def test_real_kernels(name, sig, cx, expect, target, tmp_path, monkeypatch):
    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path))
    import spec_kernels
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource
    k = triton.compile(ASTSource(fn=getattr(spec_kernels, name), signature=sig, constexprs=cx),
                       target=GPUTarget(*target), options={"enable_fp_fusion": True})
    flags = stored_args(k.asm["ttir"], k.metadata.name)
    params = [p for p, t in sig.items() if t != "constexpr"]
    got = {p: f for p, f in zip(params, flags) if p in expect}
    assert got == expect
