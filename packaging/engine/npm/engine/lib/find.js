'use strict'
const path = require('node:path')

const PLATFORMS = {
  'linux x64': '@jobwire/engine-linux-x64',
  'linux arm64': '@jobwire/engine-linux-arm64',
  'darwin x64': '@jobwire/engine-darwin-x64',
  'darwin arm64': '@jobwire/engine-darwin-arm64',
  'win32 x64': '@jobwire/engine-win32-x64',
  'win32 arm64': '@jobwire/engine-win32-arm64',
}

/** The path of this platform's jobwire-engine executable (JOBWIRE_ENGINE_BINARY overrides). */
function enginePath() {
  if (process.env.JOBWIRE_ENGINE_BINARY) return process.env.JOBWIRE_ENGINE_BINARY
  const key = `${process.platform} ${process.arch}`
  const pkg = PLATFORMS[key]
  if (!pkg) throw new Error(`@jobwire/engine: no engine build for ${key} (built for: ${Object.keys(PLATFORMS).join(', ')})`)
  let manifest
  try {
    manifest = require.resolve(`${pkg}/package.json`)
  } catch {
    throw new Error(
      `@jobwire/engine: the package ${pkg} is not installed. It is an optional dependency of @jobwire/engine; ` +
        'reinstall without --no-optional / --omit=optional, on the platform that runs the engine.',
    )
  }
  return path.join(path.dirname(manifest), 'bin', process.platform === 'win32' ? 'jobwire-engine.exe' : 'jobwire-engine')
}

module.exports = { enginePath, PLATFORMS }
