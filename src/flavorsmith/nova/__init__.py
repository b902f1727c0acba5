"""Nova flavors derived from the catalog (pure); syncing them into a Nova is sync/."""
