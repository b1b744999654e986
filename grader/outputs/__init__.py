"""What every output of the grader passes through at its edge, whoever writes it (the renderers, the gradebook,
a batch's workers, the commands): text made safe to show (`safe_text`), files written whole and never over a
device or through a link (`files`), and where a student's page lies in a class's folder (`names`)."""
