"""The examples of the definition verbs, on the example catalog (examples/): the words of each
kind's group, and one definition of each kind there (one that delete removes without --force)."""

from __future__ import annotations

from flavorsmith.catalog.kinds import Kind

# The validator files' verbs are under extra-specs, beside the validator registry's.
_WORDS = {"extra-spec": "extra-specs file"}
_SAMPLES = {
    "device-type": "palo-alto-networks-pa-5410",
    "flavor": "c2.large",
    "trait-rule": "nics",
    "extra-spec": "scheduling",
    "deploy-template": "CUSTOM_BM_CONFIG_BIOS_VMX_ON",
    "runbook": "firmware-update",
    "load-balancer-flavor": "amphora-single",
    "network-flavor": "router.standard",
}

# What NAME is, where it is not simply the definition's name.
_NAMES = {
    "device-type": "Device-type name (its slug), or 'manufacturer model'.",
    "extra-spec": "The validator file's namespace.",
    "load-balancer-flavor": "The flavor profile's name (not the name of a flavor on it).",
}


def name_help(kind: Kind) -> str:
    """The help of the NAME that show and delete take."""
    return _NAMES.get(kind.name, f"The {kind.name.replace('-', ' ')}'s name.")


def example(kind: Kind, verb: str, args: str = "") -> str:
    """``flavorsmith <kind's words> <verb> <args>``."""
    words = f"flavorsmith {_WORDS.get(kind.name, kind.name)} {verb}"
    return f"{words} {args}" if args else words


def sample(kind: Kind) -> str:
    """The name of a definition of the kind in the example catalog (its file is NAME.yaml)."""
    return _SAMPLES[kind.name]


def sample_folder(kind: Kind) -> str:
    """The folder of the kind's example files, relative to the example catalog repository."""
    return f"hardware/{kind.folder}"


def sample_file(kind: Kind) -> str:
    """A file of the kind to add, relative to the example catalog repository."""
    return f"{sample_folder(kind)}/{sample(kind)}.yaml"
