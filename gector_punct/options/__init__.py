"""Command-line options: value checks, the prediction flags shared by predict.py, serve.py and Ray, and the
training flags built from ``TrainOptions``."""
