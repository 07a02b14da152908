// Loads proto/ at run time: the Referee client for gRPC and the Action
// message type for serializing actions.
//
// Contract: `load(protoDir)` reads pyramid/referee/v1/referee_service.proto
// (and its imports) under protoDir, by default the repository's proto/
// (three levels up from this package) or $PYRAMID_PROTO_DIR. Messages reach
// the strategy as plain objects with the proto's field names (snake_case),
// every field present (defaults filled in), enums as their names, 64-bit
// integers as decimal strings, bytes as Buffers, and each oneof's set member
// named by the oneof's own name (e.g. action.kind === 'rock_paper_pyramid').
'use strict';

const path = require('node:path');
const grpc = require('@grpc/grpc-js');
const protoLoader = require('@grpc/proto-loader');
const protobuf = require('protobufjs');

const SERVICE_FILE = 'pyramid/referee/v1/referee_service.proto';
const OPTIONS = {
  keepCase: true, longs: String, enums: String, bytes: Buffer, defaults: true, oneofs: true,
};

function defaultProtoDir() {
  return process.env.PYRAMID_PROTO_DIR || path.resolve(__dirname, '..', '..', '..', '..', 'proto');
}

/** { Referee (client constructor), Action (protobufjs type), protoDir }. */
function load(protoDir = defaultProtoDir()) {
  const definition = protoLoader.loadSync(SERVICE_FILE, { ...OPTIONS, includeDirs: [protoDir] });
  const { Referee } = grpc.loadPackageDefinition(definition).pyramid.referee.v1;
  const root = new protobuf.Root();
  root.resolvePath = (_origin, target) => path.join(protoDir, target);
  root.loadSync(SERVICE_FILE, { keepCase: true });
  const Action = root.lookupType('pyramid.referee.v1.Action');
  return { Referee, Action, protoDir };
}

/** Serializes an Action given as a plain object (as the strategy returns it). */
// Fields unknown to Action are ignored, as protobufjs's fromObject does.
function encodeAction(Action, action) {
  if (action === null || typeof action !== 'object' || Array.isArray(action)) {
    throw new Error(`not an Action object: ${JSON.stringify(action)}`);
  }
  return Buffer.from(Action.encode(Action.fromObject(action)).finish());
}

module.exports = { load, encodeAction, defaultProtoDir, SERVICE_FILE };
