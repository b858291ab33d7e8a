"""The models, each behind a small protocol in ``types`` so a robot's GPU model and a CPU model are one setting
apart: detectors (SSD-MobileNet, Grounding DINO), the scene tagger, image and text embedders, OCR, voice activity
and speech recognition, the label vocabulary from WordNet, and ``registry``, which builds each from its settings.
It imports only the top-level configuration, errors and image helpers: ``memory`` and ``agent`` import it, never
the reverse.  (The event captioners, which work on memory's events, live in ``memory``.)"""
