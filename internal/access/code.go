package access

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// Pairing parameters.
const (
	// CodeLength is the length of a pairing code.
	CodeLength = 8
	// CodeTTL is how long a pairing code stays valid.
	CodeTTL = time.Hour
	// MaxPending is how many codes of one agent may be pending at once; further strangers
	// are told to try later.
	MaxPending = 3
)

// codeAlphabet has 32 characters that cannot be mistaken for each other: no 0/O, no 1/I.
const codeAlphabet = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"

// NewCode draws a pairing code from random (crypto/rand.Reader in production): CodeLength
// characters of an unambiguous alphabet, 40 bits.
func NewCode(random io.Reader) (string, error) {
	var b [CodeLength]byte
	if _, err := io.ReadFull(random, b[:]); err != nil {
		return "", fmt.Errorf("pairing code: %w", err)
	}
	for i := range b {
		b[i] = codeAlphabet[b[i]%byte(len(codeAlphabet))] // 256 is a multiple of 32: uniform
	}
	return string(b[:]), nil
}

// NormalizeCode returns code as stored: trimmed and upper case, so that an operator may
// type it in any case.
func NormalizeCode(code string) string { return strings.ToUpper(strings.TrimSpace(code)) }

// ValidCode reports whether code (normalised) has the shape of a pairing code.
func ValidCode(code string) bool {
	if len(code) != CodeLength {
		return false
	}
	for _, r := range code {
		if !strings.ContainsRune(codeAlphabet, r) {
			return false
		}
	}
	return true
}

// PairingNotice is the reply to a stranger under the Pairing policy.
func PairingNotice(code string, valid time.Duration, approve string) string {
	return fmt.Sprintf("Hi! I only talk to people my owner has approved. Your pairing code is %s (valid for %s). "+
		"Send it to the owner; once they approve it with \"%s\", just write to me again.",
		code, humanDuration(valid), approve)
}

// ApproveCommand is the command an operator runs to approve code: with the configuration
// directory when it is known, so that it works from any directory, as printed.
func ApproveCommand(code, configDir string) string {
	if configDir == "" {
		return "mynah pair approve " + code
	}
	return "mynah pair approve " + code + " --config " + configDir
}

// PairingsFullNotice is the reply to a stranger when too many codes are pending.
const PairingsFullNotice = "Hi! I can't take new pairing requests right now. Please try again in an hour."

// WelcomeNotice is sent to a user whose pairing code was approved.
const WelcomeNotice = "You're in. Write to me any time."

func humanDuration(d time.Duration) string {
	switch {
	case d%time.Hour == 0 && d == time.Hour:
		return "1 hour"
	case d%time.Hour == 0:
		return fmt.Sprintf("%d hours", d/time.Hour)
	case d%time.Minute == 0:
		return fmt.Sprintf("%d minutes", d/time.Minute)
	}
	return d.String()
}
