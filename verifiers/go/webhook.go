package webhook

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"strings"
	"time"
)

// Verify reports whether signatureHeader (the Service-Signature value) signs rawBody, the bytes as received, with
// secret, at a time within tolerance of now (300 seconds in the reference verifiers).
func Verify(secret, signatureHeader string, rawBody []byte, now time.Time, tolerance time.Duration) bool {
	timestamp := int64(-1)
	var signatures [][]byte
	for _, part := range strings.Split(signatureHeader, ",") {
		key, value, found := strings.Cut(part, "=")
		if !found {
			return false
		}
		key, value = strings.TrimSpace(key), strings.TrimSpace(value)
		switch key {
		case "t":
			if timestamp >= 0 || !onlyOf(value, "0123456789", 1, 12) {
				return false
			}
			timestamp, _ = strconv.ParseInt(value, 10, 64)
		case "v1":
			if !onlyOf(value, "0123456789abcdef", 64, 64) {
				return false
			}
			signature, _ := hex.DecodeString(value)
			signatures = append(signatures, signature)
		}
	}
	if timestamp < 0 || len(signatures) == 0 {
		return false
	}
	age := now.Unix() - timestamp
	if age < 0 {
		age = -age
	}
	if age > int64(tolerance/time.Second) {
		return false
	}
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(strconv.FormatInt(timestamp, 10) + "."))
	mac.Write(rawBody)
	expected := mac.Sum(nil)
	// Every candidate is compared, so the time taken does not tell which one matched.
	matched := false
	for _, signature := range signatures {
		if hmac.Equal(expected, signature) {
			matched = true
		}
	}
	return matched
}

// onlyOf reports whether s has between min and max characters, each one of allowed.
func onlyOf(s, allowed string, min, max int) bool {
	if len(s) < min || len(s) > max {
		return false
	}
	for _, c := range s {
		if !strings.ContainsRune(allowed, c) {
			return false
		}
	}
	return true
}
