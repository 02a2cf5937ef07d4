# The python3 workload of mseal_run_test: run sealed and unsealed, the two
# outputs must be the same. Imports modules whose C parts are extension
# modules that python dlopen()s (lib-dynload: _json, _hashlib with libcrypto,
# zlib, _ctypes with libffi, _decimal with libmpdec, math, _struct,
# _datetime, _bisect, _random, select, _posixsubprocess...).
import bisect
import ctypes
import datetime
import decimal
import hashlib
import json
import math
import random
import struct
import subprocess
import sys
import zlib

data = json.dumps({"primes": [p for p in range(2, 200) if all(p % d for d in range(2, p))],
                   "pi": round(math.pi, 10)}, sort_keys=True)
print("json", data)
print("sha256", hashlib.sha256(data.encode()).hexdigest())
print("md5", hashlib.md5(data.encode()).hexdigest())
packed = zlib.compress(data.encode() * 50, 9)
print("zlib", len(packed), zlib.crc32(packed))
decimal.getcontext().prec = 50
print("decimal", decimal.Decimal(1) / decimal.Decimal(7))
print("struct", struct.pack("<IdQ", 7, 2.5, 2**60).hex())
print("date", datetime.date(2024, 1, 11) + datetime.timedelta(days=1000))
rng = random.Random(20240111)
xs = sorted(rng.randrange(10**6) for _ in range(1000))
print("random", xs[:5], bisect.bisect(xs, 500000))
libc = ctypes.CDLL(None)
print("ctypes strlen", libc.strlen(b"sealed memory"))
print("math", math.factorial(30), math.gcd(2**40, 6**20))
out = subprocess.run([sys.executable, "-c", "print(sum(range(10**5)))"],
                     capture_output=True, text=True, check=True).stdout.strip()
print("subprocess", out)
print("modules", len(sys.modules) > 50)
