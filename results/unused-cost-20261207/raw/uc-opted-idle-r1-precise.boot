5aa60aac-4a70-456d-ae65-25f5ffcc469b
