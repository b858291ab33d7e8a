"""What the robot remembers and how it stays inside its budgets: the records (``records``), the SQLite store with
full-text and vector search (``store``: connections and transactions, with its ``reads``, the ``writes`` a
transaction runs and what a row means, ``rows``; ``schema``, ``vector_index``, ``vector_search``), the read side the
query node and the agent's tools share (``reader``: search, similar frames, summaries, what is in view, poses) with
the reads it needs from any store (``view``), the engine that turns kept frames into events with the short-term
buffer, segmentation, captions, hierarchy, graph, entities and places (``engine`` and its parts), the event
captioners (``captions``, ``vlm_captioner``, ``captioner_backends``), retention and forgetting, and the store's
checks (``doctor``). It imports the perception results and model protocols it stores (``perception.types``) and the
top-level configuration; it never imports ``ingest``, ``agent``, rclpy, the nodes or the command."""
