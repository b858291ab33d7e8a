"""Evaluation of rosbag question answering: question and answer files, scoring, and an HTML report.

Nothing here needs ROS.  ``questions`` loads the questions (and keeps their ground truth apart from
what the system under test is shown), ``answers`` reads and writes the answers JSONL, ``scoring``
scores answers against the ground truth per question type, and ``report`` renders one self-contained
HTML page from a memory store and the scored answers.
"""
