"""The restoration service (``serve.py``): HTTP and WebSocket access to a loaded ``Punctuator``.

``settings`` (``ServiceSettings``, every option), ``contract`` (what clients may send, checked),
``limits`` (how many words a request or stream message may carry), ``admission`` (connection bounds, and
refusals once shutting down), ``model_queue`` (bounded admission of model jobs, taking turns step by step),
``workers`` (where the steps run: a thread, or worker processes), ``app`` (the routes), ``streams`` (live
captions over a WebSocket), ``server`` (uvicorn with a graceful SIGTERM). Only this subpackage imports
Starlette and uvicorn; the prediction modules do not.
"""
