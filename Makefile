# Placeholder; the foundation commit fills it.
test:
	swift build
