ccebd1ae-f0eb-4c4e-80f3-db5174cc489d
