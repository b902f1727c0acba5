"""Flavor extra-spec validators: the registry, Nova's verdicts, modes, plugins and docs."""
