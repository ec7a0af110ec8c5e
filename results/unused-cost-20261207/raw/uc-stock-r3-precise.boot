ff75bfa7-d72c-4b2b-92f5-1d3ca96dd196
