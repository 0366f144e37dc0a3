wrk.method = "POST"
wrk.headers["x-api-key"] = "k"
wrk.headers["content-type"] = "application/json"
local n = 0
request = function()
  n = n + 1
  return wrk.format(nil, "/api/record/add", nil, '{"zone":"z' .. (n % 100) .. '.example","owner":"h' .. n .. '","rtype":"A","rdata":"10.0.0.1","ttl":3600}')
end
