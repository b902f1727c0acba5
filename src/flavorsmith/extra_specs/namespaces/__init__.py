"""Built-in validators, one module per namespace (Nova 34's in-tree set, plus our own)."""
