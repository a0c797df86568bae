-- wrk script: cycles /v1/resolve over a mix of hits, typed misses, redirects,
-- fallbacks, external and rejected URLs of the bundled manifest.
local urls = {
  "https%3A%2F%2Fwww.artsy.net%2Fartwork%2Fandy-warhol-soup%3Fref%3Dhome%23top",
  "artsy%3A%2F%2Fartist%2Fbanksy%2Fworks",
  "%2Fuser%2Fconversations%2F42",
  "%2Fuser%2Fconversations%2Fnot-a-number",
  "%2Fworks%2Fsoup",
  "%2Fauction%2Fspring-sale%2Fbid%2Flot-12%3Fbid%3D5000",
  "%2Forders%2F123E4567-E89B-12D3-A456-426614174000",
  "%2Fno%2Fsuch%2Fpage",
  "https%3A%2F%2Flive.artsy.net%2Fsale%2Flot",
  "mailto%3Ainfo%40artsy.net",
  "javascript%3Aalert(1)",
  "%2Fsearch%3Fq%3Dwarhol%26entity%3Dartist",
}
local i = 0
request = function()
  i = i % #urls + 1
  return wrk.format("GET", "/v1/resolve?url=" .. urls[i] .. "&appVersion=7.3.0")
end
