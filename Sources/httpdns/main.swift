print("httpdns")
