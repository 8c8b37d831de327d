
helloÿÿÿÿ