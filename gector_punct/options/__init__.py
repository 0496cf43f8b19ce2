"""Command-line options: ``flags``, the one flag system (dataclass fields -> flags, every value checked, every
error one line). It imports nothing of the package; each part declares its own settings with it:
``prediction.settings.PredictionSettings``, ``training.options.TrainOptions``, ``service.settings.ServiceSettings``."""
