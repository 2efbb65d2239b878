import { Module } from '@nestjs/common'
import { JobwireModule } from '@jobwire/nestjs'
import { OrderWorker } from './order.worker'
import { OrdersController } from './orders.controller'
import { PaymentsService } from './payments.service'

@Module({
  imports: [
    JobwireModule.forRoot({
      // The gateway, TLS and OAuth come from ZEEBE_ADDRESS, ZEEBE_CLIENT_ID, ... (default 127.0.0.1:26500).
      client: {},
      // Handlers still running at shutdown get this long to finish; then they are cancelled and their jobs handed back.
      closeTimeoutMs: Number(process.env.CLOSE_TIMEOUT_MS ?? 30_000),
    }),
  ],
  controllers: [OrdersController],
  providers: [PaymentsService, OrderWorker],
})
export class AppModule {}
