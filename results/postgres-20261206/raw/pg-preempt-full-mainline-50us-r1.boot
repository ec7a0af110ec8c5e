7debed79-70d4-4a2c-9a35-af021e6e1fca
