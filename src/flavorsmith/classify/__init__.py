"""Classification of inspection data: device type and resource class, and trait rules."""
