/**
 * Cross-language golden vectors (proto/testdata): every SDK decodes the same
 * bytes and must see the same values; re-encoding gives the same bytes.
 */
import * as fs from 'fs'
import * as path from 'path'
import * as protoLoader from '@grpc/proto-loader'
// protobufjs is the codec under @grpc/proto-loader: the runtime this SDK encodes with.
import * as protobuf from 'protobufjs'

const dir = path.resolve(__dirname, '../../../proto/testdata')
const manifest: Record<string, { message: string; file: string; fields: Record<string, unknown> }> =
  JSON.parse(fs.readFileSync(path.join(dir, 'vectors.json'), 'utf8'))
const protoFile = path.resolve(__dirname, '../../proto/gateway.proto')
const bytesOf = (file: string) => Buffer.from(fs.readFileSync(path.join(dir, file), 'utf8').trim(), 'hex')

// The SDK's own loading options (src/transport.ts).
const def = protoLoader.loadSync(protoFile, { longs: String, enums: String, defaults: true, oneofs: true })
const gateway = def['gateway_protocol.Gateway'] as protoLoader.ServiceDefinition
const method = (name: string): protoLoader.MethodDefinition<object, object> => {
  const m = gateway[name]
  if (!m) throw new Error(`gateway.proto has no ${name}`)
  return m
}
const sdkDecode: Record<string, (b: Buffer) => any> = {
  'gateway_protocol.ActivatedJob': method('StreamActivatedJobs').responseDeserialize,
  'gateway_protocol.StreamActivatedJobsRequest': method('StreamActivatedJobs').requestDeserialize,
  'gateway_protocol.FailJobRequest': method('FailJob').requestDeserialize,
}
const decodeWith = (message: string): ((b: Buffer) => any) => {
  const f = sdkDecode[message]
  if (!f) throw new Error(`no decoder for ${message}`)
  return f
}
const root = protobuf.loadSync(protoFile)

describe('golden vectors', () => {
  it('covers every vector in the manifest', () => {
    expect(Object.keys(manifest).sort()).toEqual(
      ['activated_job', 'fail_job_request', 'stream_activated_jobs_request'])
  })

  for (const [name, v] of Object.entries(manifest)) {
    it(`${name}: decodes to the manifest's values through the SDK's codec`, () => {
      const decoded = decodeWith(v.message)(bytesOf(v.file))
      for (const [field, expected] of Object.entries(v.fields)) {
        // int64 arrive as decimal strings (lossless), like the manifest's JSON mapping.
        expect(decoded[field]).toEqual(expected)
      }
    })

    it(`${name}: re-encodes byte for byte`, () => {
      const type = root.lookupType(v.message)
      const bytes = bytesOf(v.file)
      const msg = type.decode(bytes)
      expect(Buffer.from(type.encode(msg).finish()).toString('hex')).toBe(bytes.toString('hex'))
    })
  }

  it('keeps the 2^60 job key exact', () => {
    const job = decodeWith('gateway_protocol.ActivatedJob')(bytesOf('activated_job.hex'))
    expect(BigInt(job.key)).toBe(2n ** 60n + 7n)
    expect(job.type).toBe('payment-ünïcödé-💳')
  })
})
