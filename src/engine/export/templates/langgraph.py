# Summary Memory: this target's snippet is written by another part of the work (issue #26).
# Until then the export marks it plainly as not written.
SUMMARY_PROMPT = __SM_SUMMARY_PROMPT__
