"""The node inventory: nodes, their resource classes and traits, as Ironic stores them."""
