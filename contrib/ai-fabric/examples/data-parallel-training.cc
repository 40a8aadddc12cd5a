// A data-parallel training job on the 16 GPUs of a k=4 fat-tree at 400 Gb/s: each iteration
// computes, all-reduces its gradients in buckets overlapped with the backward pass, and waits
// for the slowest rank.  Prints each iteration's time and how much of it the communication
// left exposed; compare --spray=1 (packet spraying instead of ECMP flow hashing).
//
//   data-parallel-training [--parameters=2097152] [--iterations=2] [--spray=0]
#include "ns3/ai-fabric-module.h"
#include "ns3/core-module.h"

#include <iostream>

using namespace ns3;

int
main(int argc, char** argv)
{
    Time::SetResolution(Time::PS);
    uint64_t parameters = 2097152;
    uint32_t iterations = 2;
    bool spray = false;
    CommandLine cmd(__FILE__);
    cmd.AddValue("parameters", "model parameters (FP32 gradients: 4 bytes each)", parameters);
    cmd.AddValue("iterations", "training iterations", iterations);
    cmd.AddValue("spray", "spray packets over equal-cost paths instead of ECMP flow hashing", spray);
    cmd.Parse(argc, argv);

    FatTreeTopologyHelper fatTree(4);
    FabricNetworkHelper network;
    if (spray)
    {
        network.SetSwitchAttribute("LoadBalancing", EnumValue(FabricSwitch::PACKET_SPRAY));
    }
    Ptr<FabricNetwork> net = network.Install(fatTree.Build());
    RdmaHelper rdma;
    rdma.Install(net);

    TrainingJobHelper training;
    training.SetJobAttribute("Ranks", UintegerValue(16));
    training.SetJobAttribute("Iterations", UintegerValue(iterations));
    training.SetJobAttribute("ComputeTime", TimeValue(MicroSeconds(400)));
    training.SetJobAttribute("Parameters", UintegerValue(parameters));
    training.SetAlgorithm(ParallelAxis::DATA, CollectiveAlgorithm::Create("ring"));
    Ptr<TrainingJob> job = training.Install(net, rdma, 0);
    Simulator::Run();

    for (const JobIteration& it : job->GetIterations())
    {
        std::cout << "iteration " << it.iteration << ": " << it.Duration().As(Time::US)
                  << ", compute " << it.compute.As(Time::US) << ", exposed communication "
                  << it.exposed.As(Time::US) << "\n";
    }
    std::cout << (job->IsFinished() ? "finished" : "not finished") << ", mean iteration "
              << job->GetMeanIterationTime().As(Time::US) << "\n";
    Simulator::Destroy();
    return job->IsFinished() ? 0 : 1;
}
