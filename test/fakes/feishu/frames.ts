/**
 * The `pbbp2.Frame` protobuf that Feishu's long connection speaks, for the fake server's side of the socket.
 * method 0 = control (ping / pong), 1 = data (events, and the client's acknowledgments of them).
 */
import protobuf from "protobufjs";

const PROTO = `
syntax = "proto2";
package pbbp2;
message Header {
  required string key = 1;
  required string value = 2;
}
message Frame {
  required uint64 SeqID = 1;
  required uint64 LogID = 2;
  required int32 service = 3;
  required int32 method = 4;
  repeated Header headers = 5;
  optional string payloadEncoding = 6;
  optional string payloadType = 7;
  optional bytes payload = 8;
  optional string LogIDNew = 9;
}
`;

// The SDK's bundled pbbp2 code switches protobufjs's Long support off for the whole process; so does this file,
// before parsing, so that 64-bit fields are plain numbers whichever of the two loads first.
protobuf.util.Long = undefined as unknown as typeof protobuf.util.Long;
protobuf.configure();

const FrameType = protobuf.parse(PROTO).root.lookupType("pbbp2.Frame");

export const CONTROL = 0;
export const DATA = 1;

export interface Frame {
  service: number;
  method: number;
  headers: Record<string, string>;
  payload?: Uint8Array;
}

export function encodeFrame(frame: Frame): Uint8Array {
  const message = FrameType.fromObject({
    SeqID: 0,
    LogID: 0,
    service: frame.service,
    method: frame.method,
    headers: Object.entries(frame.headers).map(([key, value]) => ({ key, value })),
    ...(frame.payload ? { payload: frame.payload } : {}),
  });
  return FrameType.encode(message).finish();
}

export function decodeFrame(bytes: Uint8Array): Frame {
  const decoded = FrameType.toObject(FrameType.decode(bytes), { longs: Number, bytes: Buffer }) as {
    service: number;
    method: number;
    headers?: Array<{ key: string; value: string }>;
    payload?: Buffer;
  };
  return {
    service: decoded.service,
    method: decoded.method,
    headers: Object.fromEntries((decoded.headers ?? []).map((h) => [h.key, h.value])),
    ...(decoded.payload ? { payload: decoded.payload } : {}),
  };
}
