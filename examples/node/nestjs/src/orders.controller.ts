import * as path from 'node:path'
import { BadRequestException, Body, Controller, Get, Post, type OnApplicationBootstrap } from '@nestjs/common'
import { InjectJobwireClient, JobwireHealth } from '@jobwire/nestjs'
import type { Client } from '@jobwire/sdk'
import { Charge } from './order.worker'

@Controller()
export class OrdersController implements OnApplicationBootstrap {
  constructor(
    @InjectJobwireClient() private readonly client: Client,
    private readonly health: JobwireHealth,
  ) {}

  /** Deploys the process once the application is up. */
  async onApplicationBootstrap(): Promise<void> {
    await this.client.deployFiles(path.join(__dirname, '..', 'order.bpmn'))
  }

  /** POST /orders {"orderId":"o-1","amount":42}: starts an instance of the process. */
  @Post('orders')
  async create(@Body() body: unknown) {
    const parsed = Charge.safeParse(body)
    if (!parsed.success) throw new BadRequestException(parsed.error.issues)
    const order = parsed.data
    const instance = await this.client.createProcessInstance({ bpmnProcessId: 'nest-order', variables: order })
    return { processInstanceKey: instance.processInstanceKey }
  }

  /** GET /health/jobwire: 200 with the workers' states, 503 with the same JSON when a worker is not UP. */
  @Get('health/jobwire')
  check() {
    return this.health.checkOrThrow()
  }
}
