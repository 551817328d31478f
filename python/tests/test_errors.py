"""Bad input gives a Python exception carrying loci's message, never a crash."""
import numpy as np
import pytest

import loci


def test_unknown_intent_names_the_term():
    with pytest.raises(loci.InvalidError, match="unknown key 'colour'") as e:
        loci.empty(10, intent="colour=blue")
    assert e.value.code == -1 and "keys:" in e.value.message
    assert isinstance(e.value, ValueError)


def test_unsatisfiable_intent_lists_what_the_machine_has():
    with pytest.raises(loci.NotFoundError) as e:
        loci.zeros(10, intent="kind=hbm!")
    assert "dram0" in e.value.message and isinstance(e.value, LookupError)
    with pytest.raises(loci.NotFoundError):
        loci.resolve("kind=hbm!")


@pytest.mark.parametrize("shape", [3.5, "12", (2, None), [1, 2.0]])
def test_shapes_must_be_integers(shape):
    with pytest.raises(TypeError, match="not an integer"):
        loci.empty(shape)


@pytest.mark.parametrize("dtype", ["nonsense", object, "V0"])
def test_dtypes_must_be_plain_data(dtype):
    with pytest.raises(TypeError, match="dtype"):
        loci.zeros(4, dtype=dtype)


def test_negative_and_overflowing_sizes():
    with pytest.raises(loci.InvalidError, match="negative"):
        loci.empty((4, -1))
    with pytest.raises(loci.NoMemoryError, match="address space"):
        loci.empty((1 << 40, 1 << 40), "f8")
    with pytest.raises(loci.NoMemoryError) as e:  # representable, but no machine has it
        loci.empty(1 << 61, "u1")
    assert e.value.code == -2 and e.value.message  # loci's own words
    with pytest.raises(loci.InvalidError, match="max_bytes"):
        loci.Arena("", -5)


def test_arena_cap_is_enforced():
    with loci.Arena("", 1 << 16) as ar:
        ar.empty(1 << 15, "u1")
        with pytest.raises(loci.NoMemoryError):
            ar.empty(1 << 17, "u1")


def test_unknown_target_and_foreign_memory():
    with pytest.raises(loci.NotFoundError, match="dram0"):  # the message lists the real names
        loci.target("hbm7")
    with loci.Arena() as ar:
        with pytest.raises(loci.NotFoundError):
            ar.move("nowhere")
    with pytest.raises(loci.NotFoundError, match="not memory loci allocated"):
        loci.target_of(np.zeros(10))
    with pytest.raises(TypeError, match="has no memory of its own"):  # numpy would name a copy
        loci.target_of([1.0, 2.0])
    with pytest.raises(TypeError, match="intent must be a str"):
        loci.empty(3, intent=5)


def test_region_and_checkpoint_names():
    with pytest.raises(loci.InvalidError):
        loci.region("../escape", (10,), "u1")
    with pytest.raises(loci.NotFoundError):
        loci.region("py-never-made", (10,), "u1", create=False)
    with pytest.raises(loci.NotFoundError):
        loci.checkpoint.restore("py-never-saved")
    with pytest.raises(loci.InvalidError, match="not contiguous"):
        loci.checkpoint.register("py-strided", loci.zeros((10, 10))[:, 1])
    with pytest.raises(TypeError, match="has no memory of its own"):  # restore would write a copy
        loci.checkpoint.register("py-list", [1, 2, 3])
    with pytest.raises(loci.InvalidError):
        loci.checkpoint.save("bad/name")


def test_prefetch_of_memory_loci_does_not_know():
    with pytest.raises(loci.InvalidError):
        loci.prefetch(np.zeros(100))
