import 'reflect-metadata'
import { NestFactory } from '@nestjs/core'
import { AppModule } from './app.module'

async function main(): Promise<void> {
  const app = await NestFactory.create(AppModule)
  // SIGTERM / SIGINT run app.close(): the workers close gracefully before the process exits.
  app.enableShutdownHooks()
  const port = Number(process.env.PORT ?? 3000)
  await app.listen(port, '127.0.0.1')
  console.log(`listening on ${await app.getUrl()}`)
}

void main()
