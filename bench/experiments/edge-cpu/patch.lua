wrk.method = "PATCH"
wrk.headers["x-api-key"] = "k"
local n = 0
request = function()
  n = n + 1
  return wrk.format(nil, "/api/v1/servers/localhost/zones/z" .. (n % 100) .. ".example.", nil, '{"rrsets":[{"name":"h' .. n .. '.z' .. (n % 100) .. '.example.","type":"A","ttl":3600,"changetype":"REPLACE","records":[{"content":"10.0.0.1","disabled":false}]}]}')
end
