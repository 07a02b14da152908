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

/**
 * Throws when `object` (a plain object of message `type`, at `where`) has a
 * key that is neither a field of `type` nor one of its oneofs' names (which
 * the kit's own messages carry: action.kind), which protobufjs's fromObject
 * would silently drop: "rock_paper_pyramid.peice is not a field of the
 * message pyramid.referee.v1.RockPaperPyramidAction". A key set to
 * undefined is no field set, and is let be.
 */
function checkKeys(type, object, where) {
  for (const key of Object.keys(object)) {
    if (object[key] === undefined) continue;
    if (Object.prototype.hasOwnProperty.call(type.fields, key)) continue;
    if (type.oneofs && Object.prototype.hasOwnProperty.call(type.oneofs, key)) continue;
    throw new Error(`${where}${key} is not a field of the message `
      + `${type.fullName.replace(/^\./, '')}`);
  }
}

/**
 * Throws when `object` (a plain object of message `type`, at `where`), or
 * a message within it, has a key that is not a field (checkKeys), or an
 * enum field set to a name its enum does not have, which protobufjs's
 * fromObject would silently turn into the enum's 0: "piece.colour is
 * 'RPP_PURPLE', not a value of the enum pyramid.referee.v1.RppColour".
 * Numbers are left alone (proto3 enums are open).
 */
function checkMessage(type, object, where = '') {
  checkKeys(type, object, where);
  for (const field of type.fieldsArray) {
    const value = object[field.name];
    if (value === null || value === undefined) continue;
    field.resolve();
    const target = field.resolvedType;
    if (!target) continue;
    const name = `${where}${field.name}`;
    let values;
    if (field.map) values = typeof value === 'object' ? Object.values(value) : [];
    else if (field.repeated) values = Array.isArray(value) ? value : [];
    else values = [value];
    for (const v of values) {
      if (target instanceof protobuf.Enum) {
        if (typeof v === 'string' && !Object.prototype.hasOwnProperty.call(target.values, v)) {
          throw new Error(`${name} is ${JSON.stringify(v)}, not a value of the enum `
            + `${target.fullName.replace(/^\./, '')}`);
        }
      } else if (target instanceof protobuf.Type && v && typeof v === 'object'
          && !Buffer.isBuffer(v) && !ArrayBuffer.isView(v)) {
        checkMessage(target, v, `${name}.`);
      }
    }
  }
}

/**
 * Serializes an Action given as a plain object (as the strategy returns
 * it). An Error naming the field when a key is not a field of its message
 * (a misspelt name would otherwise be dropped, and the action be another),
 * or when an enum name is unknown to its enum (naming the enum too).
 */
function encodeAction(Action, action) {
  if (action === null || typeof action !== 'object' || Array.isArray(action)) {
    throw new Error(`not an Action object: ${JSON.stringify(action)}`);
  }
  checkMessage(Action, action);
  return Buffer.from(Action.encode(Action.fromObject(action)).finish());
}

module.exports = { load, encodeAction, defaultProtoDir, SERVICE_FILE };
