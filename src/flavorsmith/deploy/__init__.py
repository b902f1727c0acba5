"""Deploy templates: traits that map to deploy steps, and planning the steps of a deploy."""
