8f44adc9-a5dc-4578-8bd0-e7da0b3ce460
