"""The restoration service (``serve.py``): HTTP and WebSocket access to a loaded ``Punctuator``.

``settings`` (``ServiceSettings``, every option), ``contract`` (what clients may send, checked),
``model_queue`` (the one worker thread that runs the model, behind a bounded admission), ``app`` (the
routes), ``streams`` (live captions over a WebSocket), ``server`` (uvicorn with a graceful SIGTERM). Only
this subpackage imports Starlette and uvicorn; the prediction modules do not.
"""
