"""The course-scale grading behind grading/grade.py (see its --help and grading/README.md)."""
