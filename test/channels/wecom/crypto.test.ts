/**
 * The callback crypto against WeCom's documented test vector (加解密方案说明 and the official WXBizMsgCrypt samples:
 * token QDG6eK, EncodingAESKey jWmYm7qr5nMoAUwZRjGtBxmz3KA1tkAj3ykkR6q2B2C, corp id wx5823bf96d3bd56c7).
 */
import { describe, expect, it } from "vitest";
import { openCallback } from "../../../src/channels/wecom/crypto.js";

const keys = { token: "QDG6eK", aesKey: "jWmYm7qr5nMoAUwZRjGtBxmz3KA1tkAj3ykkR6q2B2C", corpId: "wx5823bf96d3bd56c7" };
const query = { msg_signature: "5c45ff5e21c57e6ad56bac8758b79b1d9ac89fd3", timestamp: "1409659589", nonce: "263014780" };
const echostr = "P9nAzCzyDtyTWESHep1vC5X9xho/qYX3Zpb4yKa9SKld1DsH3Iyt3tP3zNdtp+4RPcs8TgAE7OaBO+FZXvnaqQ==";

describe("WeCom callback crypto", () => {
  it("verifies and decrypts the documented URL verification request", () => {
    expect(openCallback(echostr, query, keys)).toEqual({ ok: true, plaintext: "1616140317555161061" });
  });

  it("refuses a wrong signature with 401 before decrypting, and another corp id with 403", () => {
    expect(openCallback(echostr, { ...query, nonce: "263014781" }, keys)).toMatchObject({ ok: false, status: 401 });
    expect(openCallback(echostr, { ...query, msg_signature: undefined }, keys)).toMatchObject({ ok: false, status: 401 });
    expect(openCallback(echostr, query, { ...keys, corpId: "wx0000000000000000" })).toMatchObject({ ok: false, status: 403 });
  });
});
