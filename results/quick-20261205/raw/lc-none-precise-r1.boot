e16d7f82-adc4-4cef-8dc9-11e3ae96d197
