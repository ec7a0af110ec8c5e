b2ae3fdc-a02a-44fa-a3ad-dcfef9d5bae5
