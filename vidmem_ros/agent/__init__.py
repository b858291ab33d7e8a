"""Answering questions about memory.

Reading a question into a typed plan (``question``, ``question_model``, ``question_similarity``, ``asked``,
``description``); the tools a planner calls over memory (``tools``, with their context and findings in
``tool_context``, argument schemas in ``tool_args``, the registry in ``tool_registry``, word matching in
``text_match``, label resolution in ``labels``, grounding a description in every kind of record in ``grounding``
and occasions in ``runs``); the harness that runs a planner's steps under a budget with
strict schemas (``harness``, ``fitting``); the offline and language-model planners; and the ``Reasoner`` that the
query node, ``vidmem eval`` and the tests share.  It imports ``memory`` (the store and its search), ``perception``
(model protocols and the label vocabulary) and the top-level configuration; never rclpy, the nodes or the command.
"""
