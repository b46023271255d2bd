import hashlib
import hmac
import re
import time


def verify(secret, signature_header, raw_body, now=None, tolerance=300) -> bool:
    """True when signature_header (the Service-Signature value) signs raw_body, the bytes as received, with secret."""
    if not isinstance(signature_header, str):
        return False
    timestamp, signatures = None, []
    for part in signature_header.split(","):
        key, sep, value = part.partition("=")
        if not sep:
            return False
        key, value = key.strip(), value.strip()
        if key == "t":
            if timestamp is not None or not re.fullmatch(r"[0-9]{1,12}", value):
                return False
            timestamp = int(value)
        elif key == "v1":
            if not re.fullmatch(r"[0-9a-f]{64}", value):
                return False
            signatures.append(value)
    if timestamp is None or not signatures:
        return False
    now = int(time.time()) if now is None else int(now)
    if abs(now - timestamp) > tolerance:
        return False
    if isinstance(raw_body, str):
        raw_body = raw_body.encode("utf-8")
    signed = str(timestamp).encode("ascii") + b"." + raw_body
    expected = hmac.new(secret.encode("utf-8"), signed, hashlib.sha256).hexdigest()
    # Every candidate is compared, so the time taken does not tell which one matched.
    matched = False
    for candidate in signatures:
        matched |= hmac.compare_digest(expected, candidate)
    return matched
