// placeholder during build bring-up
