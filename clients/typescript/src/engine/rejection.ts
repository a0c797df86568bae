// The reasons a URL is refused outright, as the `reason` of a rejected result says them.

/** Why a URL was refused outright: the `reason` of a rejected result. */
export const Rejection = {
  tooLong: "longer than 8192 bytes",
  controlCharacter: "control character",
  whitespace: "whitespace",
  backslash: "backslash",
  invalidPercentEncoding: "invalid percent-encoding",
  invalidUTF8: "percent-decoded bytes are not UTF-8",
  userinfo: "userinfo in URL",
  unsafeScheme: "unsafe scheme",
  invalidHost: "invalid host",
  invalidPort: "invalid port",
  missingHost: "missing host",
  ambiguousSlashes: "three or more slashes before the host",
} as const;
