// Preloaded into server-everything's HTTP mode (node -r): it listens on every interface by
// default, and test servers bind 127.0.0.1 only.
const net = require("node:net");
const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (port, ...rest) {
  if (typeof port === "number" || typeof port === "string") {
    if (typeof rest[0] !== "string") rest.unshift("127.0.0.1");
  }
  return listen.call(this, port, ...rest);
};
