"""Which nodes each flavor can land on, why not, and capacity per flavor."""
