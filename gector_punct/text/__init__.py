"""Text rules, without torch: tagging units, the edit-tag set and both directions, alignment, tasks, what an
input line already carries, written forms of words, and files in and out (``files``)."""
