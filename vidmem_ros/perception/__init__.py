"""The models, each behind a small protocol in ``types`` so a robot's GPU model and a CPU model are one setting
apart: detectors (SSD-MobileNet, Grounding DINO), the scene tagger, image and text embedders, OCR, voice activity
and speech recognition, the label vocabulary from WordNet, and ``registry``, which builds each from its settings.
It imports the top-level configuration and errors; the event captioner's VLM backend (``vlm_captioner``) and the
registry also reach the caption types in ``memory.captions``."""
