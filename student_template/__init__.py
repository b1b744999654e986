"""Starting point handed to students for the chapter 3 exercises."""
