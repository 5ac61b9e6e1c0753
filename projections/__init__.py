"""The read side: projector workers that fold table logs into views and scoreboards."""
