#include "trace-program.h"

#include "ns3/log.h"

#include <algorithm>
#include <functional>
#include <queue>
#include <set>
#include <stdexcept>
#include <unordered_map>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("TraceProgram");

namespace
{
[[noreturn]] void
Bad(uint32_t rank, const TraceNode* n, const std::string& what)
{
    std::string where = "rank " + std::to_string(rank);
    if (n)
    {
        where += ", node " + std::to_string(n->id) + (n->name.empty() ? "" : " (" + n->name + ")");
    }
    throw std::invalid_argument(where + ": " + what);
}

std::string
RankList(const std::vector<uint32_t>& ranks)
{
    std::string s;
    for (uint32_t r : ranks)
    {
        s += (s.empty() ? "" : ",") + std::to_string(r);
    }
    return "[" + s + "]";
}

/** A collective node's process group, the world's two spellings ("" and "0") as "0". */
std::string
GroupName(const TraceNode& n)
{
    return n.group.empty() ? "0" : n.group;
}

/** The pipeline transfers share one request list, kept at ACTIVATION_SEND's index. */
std::size_t
RequestSlot(JobComm comm)
{
    return IsPipelineTransfer(comm) ? static_cast<std::size_t>(JobComm::ACTIVATION_SEND)
                                    : static_cast<std::size_t>(comm);
}
} // namespace

TraceProgram::TraceProgram(const std::vector<std::vector<TraceNode>>& nodes,
                           const ParallelLayout& layout,
                           const std::map<std::string, std::vector<uint32_t>>& groups,
                           ElementBytes element)
{
    if (nodes.size() != layout.GetNRanks())
    {
        throw std::invalid_argument("a trace per rank: " + std::to_string(layout.GetNRanks()) +
                                    " ranks, " + std::to_string(nodes.size()) + " traces");
    }
    for (const auto& [name, ranks] : groups)
    {
        for (uint32_t r : ranks)
        {
            if (r >= layout.GetNRanks())
            {
                throw std::invalid_argument("process group '" + name + "' has rank " +
                                            std::to_string(r) + "; the job has ranks 0-" +
                                            std::to_string(layout.GetNRanks() - 1));
            }
        }
    }
    m_ops.resize(nodes.size());
    for (uint32_t r = 0; r < nodes.size(); ++r)
    {
        Build(r, nodes[r], layout, groups, element);
    }
    if (m_anyTransfer && !m_freeTransfers)
    {
        for (const JobRequest& q : m_requests[RequestSlot(JobComm::ACTIVATION_SEND)])
        {
            if (q.bytes == 0)
            {
                throw std::invalid_argument(
                    "sends and receives must all have bytes (comm_size > 0) or all have none "
                    "(the stages then wait for each other at no cost); this trace mixes them");
            }
        }
    }
    CheckMatched(layout);
}

std::vector<uint32_t>
TraceProgram::IssueOrder(uint32_t r, const std::vector<TraceNode>& nodes,
                         const std::unordered_map<uint64_t, uint32_t>& index)
{
    std::vector<uint32_t> waiting(nodes.size(), 0);
    std::vector<std::vector<uint32_t>> children(nodes.size());
    for (uint32_t i = 0; i < nodes.size(); ++i)
    {
        std::set<uint64_t> parents(nodes[i].parents.begin(), nodes[i].parents.end());
        for (uint64_t p : parents)
        {
            auto it = index.find(p);
            if (it == index.end())
            {
                Bad(r, &nodes[i], "depends on node " + std::to_string(p) +
                                      ", which is not in the rank's trace");
            }
            children[it->second].push_back(i);
            ++waiting[i];
        }
    }
    using Entry = std::pair<uint64_t, uint32_t>; // id, position
    std::priority_queue<Entry, std::vector<Entry>, std::greater<>> ready;
    for (uint32_t i = 0; i < nodes.size(); ++i)
    {
        if (waiting[i] == 0)
        {
            ready.emplace(nodes[i].id, i);
        }
    }
    std::vector<uint32_t> order;
    order.reserve(nodes.size());
    while (!ready.empty())
    {
        const uint32_t i = ready.top().second;
        ready.pop();
        order.push_back(i);
        for (uint32_t child : children[i])
        {
            if (--waiting[child] == 0)
            {
                ready.emplace(nodes[child].id, child);
            }
        }
    }
    return order; // without the nodes on or behind a cycle: Build reports them
}

bool
TraceProgram::Convert(uint32_t r, const TraceNode& n, const ParallelLayout& layout,
                      const std::map<std::string, std::vector<uint32_t>>& groups,
                      ElementBytes element, const std::set<std::string>& allToAll, Op& o)
{
    switch (n.kind)
    {
    case TraceNode::ORDER:
        return false;
    case TraceNode::COMPUTE:
        o.op.kind = JobOp::COMPUTE;
        o.micros = n.durationMicros;
        o.flops = n.durationMicros > 0 ? 0 : n.flops;
        return true;
    case TraceNode::COLLECTIVE: {
        o.op.comm = CommOf(r, n, layout, groups, allToAll);
        if (layout.Size(SpanOf(o.op.comm)) == 1)
        {
            return false; // a group of one rank has nothing to exchange
        }
        uint32_t bytes = 1;
        const bool gradients = IsGradientComm(o.op.comm);
        if (gradients && (n.op == ALL_REDUCE || n.op == REDUCE_SCATTER))
        {
            bytes = element.gradient;
        }
        else if (gradients && n.op == ALL_GATHER)
        {
            bytes = element.parameter;
        }
        o.op.request = Request(o.op.comm, {n.op, n.bytes, bytes});
        return true;
    }
    case TraceNode::SEND:
    case TraceNode::RECV: {
        ParallelLayout::Coordinates c = layout.Of(r);
        const bool send = n.kind == TraceNode::SEND;
        const auto neighbour = [&](int step) {
            ParallelLayout::Coordinates d = c;
            d.pp += step;
            return layout.RankOf(d);
        };
        const bool next = c.pp + 1 < layout.pp && n.peer == neighbour(1);
        const bool previous = c.pp > 0 && n.peer == neighbour(-1);
        if (n.peer >= layout.GetNRanks() || (!next && !previous))
        {
            Bad(r, &n, std::string(send ? "sends to" : "receives from") + " rank " +
                           std::to_string(n.peer) +
                           ", which is not the next or previous pipeline stage of this rank "
                           "(point-to-point messages run between adjacent stages only)");
        }
        o.op.comm = send ? (next ? JobComm::ACTIVATION_SEND : JobComm::GRADIENT_SEND)
                         : (previous ? JobComm::ACTIVATION_RECV : JobComm::GRADIENT_RECV);
        o.op.request = Request(o.op.comm, {BROADCAST, n.bytes, 1});
        m_anyTransfer = true;
        m_freeTransfers = m_freeTransfers && n.bytes == 0;
        return true;
    }
    }
    return false;
}

void
TraceProgram::Build(uint32_t r, const std::vector<TraceNode>& nodes, const ParallelLayout& layout,
                    const std::map<std::string, std::vector<uint32_t>>& groups,
                    ElementBytes element)
{
    std::unordered_map<uint64_t, uint32_t> index; // node id -> position in nodes
    for (uint32_t i = 0; i < nodes.size(); ++i)
    {
        if (!index.emplace(nodes[i].id, i).second)
        {
            Bad(r, &nodes[i], "another node has this id; ids must differ");
        }
    }
    // Per node, the operations finishing it stands for: its own collective, or for a node
    // that became no operation, its parents'.  Compute needs none: the next operation is
    // issued only once the GPU has finished it.
    std::vector<std::vector<uint32_t>> stands(nodes.size());
    // Per node, 1 + the last compute op among it and its ancestors: a child may start ahead
    // of the program only past it (the GPU runs compute in program order).  A collective or
    // transfer parent passes on nothing: it finished after its own.
    std::vector<uint32_t> barrier(nodes.size(), 0);
    std::vector<Op>& ops = m_ops[r];
    std::vector<uint32_t> communication; // every op that communicates
    std::set<std::string> allToAll;      // the process groups with an all-to-all
    for (const TraceNode& n : nodes)
    {
        if (n.kind == TraceNode::COLLECTIVE && n.op == ALL_TO_ALL)
        {
            allToAll.insert(GroupName(n));
        }
    }
    const std::vector<uint32_t> order = IssueOrder(r, nodes, index);
    std::vector<bool> placed(nodes.size(), false);
    for (uint32_t i : order)
    {
        placed[i] = true;
        const TraceNode& n = nodes[i];
        std::set<uint32_t> after;
        uint32_t gate = 0;
        for (uint64_t p : n.parents)
        {
            const auto& s = stands[index.at(p)];
            after.insert(s.begin(), s.end());
            gate = std::max(gate, barrier[index.at(p)]);
        }
        Op o;
        o.op.kind = JobOp::COLLECTIVE;
        o.op.phase = JobOp::TRACED;
        o.op.blocking = false;
        o.op.after.assign(after.begin(), after.end());
        o.op.gate = gate;
        o.node = n.id;
        if (!Convert(r, n, layout, groups, element, allToAll, o))
        {
            stands[i].assign(after.begin(), after.end());
            barrier[i] = gate;
            continue;
        }
        ops.push_back(o);
        const uint32_t at = static_cast<uint32_t>(ops.size() - 1);
        if (o.op.kind == JobOp::COMPUTE)
        {
            barrier[i] = at + 1;
        }
        else
        {
            stands[i] = {at};
            if (!(IsPipelineTransfer(o.op.comm) && n.bytes == 0))
            {
                communication.push_back(at); // a free transfer finishes as it is passed
            }
        }
    }
    // After the placed nodes' own errors, as when the order was built while converting.
    for (uint32_t i = 0; order.size() != nodes.size() && i < nodes.size(); ++i)
    {
        if (!placed[i])
        {
            Bad(r, &nodes[i], "is on a cycle of dependencies (or depends on one)");
        }
    }
    // The rank is done when every node is: the end waits for every collective, the latest
    // issued first.
    Op end;
    end.op.kind = JobOp::WAIT;
    end.op.phase = JobOp::TRACED;
    end.op.after = std::move(communication);
    ops.push_back(end);
}

JobComm
TraceProgram::CommOf(uint32_t r, const TraceNode& n, const ParallelLayout& layout,
                     const std::map<std::string, std::vector<uint32_t>>& groups,
                     const std::set<std::string>& allToAll) const
{
    std::vector<uint32_t> members;
    if (n.group.empty() || n.group == "0")
    {
        for (uint32_t i = 0; i < layout.GetNRanks(); ++i)
        {
            members.push_back(i);
        }
    }
    else
    {
        auto it = groups.find(n.group);
        if (it == groups.end())
        {
            Bad(r, &n, "process group '" + n.group + "' is not among the job's process groups");
        }
        members = it->second;
    }
    std::sort(members.begin(), members.end());
    // The first communicator whose group of this rank this is.  With DP = 1 the expert and
    // data-parallel groups hold the same ranks: a process group the rank runs an all-to-all on
    // is the experts', any other the dense gradients'.  With EP = 1 the data and expert-data
    // groups do: the data group's.
    std::vector<JobComm> order(std::begin(kCollectiveComms), std::end(kCollectiveComms));
    if (allToAll.count(GroupName(n)) == 0)
    {
        std::iter_swap(std::find(order.begin(), order.end(), JobComm::EXPERT),
                       std::find(order.begin(), order.end(), JobComm::DATA));
    }
    for (JobComm comm : order)
    {
        std::vector<uint32_t> group = layout.GroupOf(r, SpanOf(comm));
        std::sort(group.begin(), group.end());
        if (group == members)
        {
            return comm;
        }
    }
    Bad(r, &n, "process group " + (n.group.empty() ? std::string("(all ranks)") : "'" + n.group + "'") +
                   " with ranks " + RankList(members) +
                   " is not this rank's tensor, expert, data or expert-data-parallel group (TP " +
                   std::to_string(layout.tp) + ", EP " + std::to_string(layout.ep) + ", DP " +
                   std::to_string(layout.dp) + ", PP " + std::to_string(layout.pp) + ")");
}

uint32_t
TraceProgram::Request(JobComm comm, const JobRequest& request)
{
    auto& list = m_requests[RequestSlot(comm)];
    for (uint32_t i = 0; i < list.size(); ++i)
    {
        if (list[i].op == request.op && list[i].bytes == request.bytes &&
            list[i].elementBytes == request.elementBytes)
        {
            return i;
        }
    }
    list.push_back(request);
    return static_cast<uint32_t>(list.size() - 1);
}

void
TraceProgram::CheckMatched(const ParallelLayout& layout) const
{
    // Each rank's sequence of requests on each communicator.
    const auto sequence = [this](uint32_t r, JobComm comm) {
        std::vector<uint32_t> s;
        for (const Op& o : m_ops[r])
        {
            if (o.op.kind == JobOp::COLLECTIVE && o.op.comm == comm)
            {
                s.push_back(o.op.request);
            }
        }
        return s;
    };
    const auto describe = [this](JobComm comm, const std::vector<uint32_t>& s) {
        std::string d = std::to_string(s.size()) + " operations";
        if (!s.empty())
        {
            const JobRequest& q = m_requests[RequestSlot(comm)][s.front()];
            d += ", the first " + std::string(CollectiveOperationName(q.op)) + " of " +
                 std::to_string(q.bytes) + " bytes";
        }
        return d;
    };
    for (JobComm comm : kCollectiveComms)
    {
        for (const auto& group : layout.Groups(SpanOf(comm)))
        {
            const auto first = sequence(group[0], comm);
            for (uint32_t r : group)
            {
                const auto s = sequence(r, comm);
                if (s != first)
                {
                    Bad(r, nullptr, std::string("its ") + JobCommName(comm) +
                                        "-parallel group " + RankList(group) +
                                        " does not issue the same collectives on every member: "
                                        "rank " + std::to_string(group[0]) + " issues " +
                                        describe(comm, first) + ", rank " + std::to_string(r) +
                                        " " + describe(comm, s));
                }
            }
        }
    }
    for (const auto& stages : layout.Groups(ParallelAxis::PIPELINE))
    {
        for (uint32_t s = 0; s + 1 < stages.size(); ++s)
        {
            const std::pair<uint32_t, uint32_t> ways[] = {{stages[s], stages[s + 1]},
                                                          {stages[s + 1], stages[s]}};
            for (const auto& [from, to] : ways)
            {
                const bool forward = from == stages[s];
                const auto sent = sequence(from, forward ? JobComm::ACTIVATION_SEND : JobComm::GRADIENT_SEND);
                const auto received = sequence(to, forward ? JobComm::ACTIVATION_RECV : JobComm::GRADIENT_RECV);
                if (sent != received)
                {
                    Bad(to, nullptr, "its receives from rank " + std::to_string(from) +
                                         " do not match that rank's sends to it: " +
                                         describe(JobComm::ACTIVATION_SEND, sent) + " sent, " +
                                         describe(JobComm::ACTIVATION_SEND, received) + " received");
                }
            }
        }
    }
}

std::vector<JobOp>
TraceProgram::GetOps(uint32_t rank, Ptr<const Accelerator> gpu) const
{
    std::vector<JobOp> ops;
    ops.reserve(m_ops[rank].size());
    for (const Op& o : m_ops[rank])
    {
        ops.push_back(o.op);
        if (o.op.kind == JobOp::COMPUTE)
        {
            ops.back().picoseconds = o.flops > 0 ? gpu->ComputeTime(o.flops).GetPicoSeconds()
                                                 : static_cast<int64_t>(o.micros) * 1000000;
        }
    }
    return ops;
}

const std::vector<JobRequest>&
TraceProgram::GetRequests(JobComm comm) const
{
    return m_requests[RequestSlot(comm)];
}

std::vector<TraceNode>
TraceProgram::FromOps(const std::vector<JobOp>& ops,
                      const std::array<std::vector<JobRequest>, kJobComms>& requests,
                      std::pair<uint32_t, uint32_t> peers,
                      const std::array<std::string, kJobComms>& groups)
{
    std::vector<TraceNode> nodes;
    std::vector<uint64_t> nodeOf(ops.size(), 0); // op -> its node's id
    std::vector<uint64_t> gate;    // what the next operation waits for
    std::vector<uint64_t> pending; // collectives started and not waited for yet
    for (std::size_t i = 0; i < ops.size(); ++i)
    {
        const JobOp& op = ops[i];
        TraceNode n;
        n.id = nodes.size() + 1;
        n.parents = gate;
        for (uint32_t a : op.after)
        {
            if (nodeOf[a] != 0 && std::find(gate.begin(), gate.end(), nodeOf[a]) == gate.end())
            {
                n.parents.push_back(nodeOf[a]);
            }
        }
        switch (op.kind)
        {
        case JobOp::WAIT:
            gate.insert(gate.end(), pending.begin(), pending.end());
            pending.clear();
            continue;
        case JobOp::COMPUTE:
            n.kind = TraceNode::COMPUTE;
            n.name = std::string(JobOp::PhaseName(op.phase)) + " compute, micro-batch " +
                     std::to_string(op.microBatch);
            n.durationMicros = static_cast<uint64_t>(std::llround(op.picoseconds / 1e6));
            gate = {n.id};
            break;
        case JobOp::COLLECTIVE: {
            const JobRequest& q = requests[RequestSlot(op.comm)][op.request];
            n.bytes = q.bytes;
            n.op = q.op;
            n.name = std::string(JobOp::PhaseName(op.phase)) + " " + JobCommName(op.comm) + " " +
                     CollectiveOperationName(q.op) + ", micro-batch " + std::to_string(op.microBatch);
            if (IsPipelineTransfer(op.comm))
            {
                const bool send = op.comm == JobComm::ACTIVATION_SEND || op.comm == JobComm::GRADIENT_SEND;
                n.kind = send ? TraceNode::SEND : TraceNode::RECV;
                const bool towardsNext = op.comm == JobComm::ACTIVATION_SEND || op.comm == JobComm::GRADIENT_RECV;
                n.peer = towardsNext ? peers.second : peers.first;
            }
            else
            {
                n.kind = TraceNode::COLLECTIVE;
                n.group = groups[static_cast<std::size_t>(op.comm)];
            }
            if (op.blocking)
            {
                gate = {n.id};
            }
            else
            {
                pending.push_back(n.id);
            }
            break;
        }
        }
        nodeOf[i] = n.id;
        nodes.push_back(n);
    }
    return nodes;
}

} // namespace ns3
